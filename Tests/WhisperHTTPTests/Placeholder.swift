import Testing

@Test func placeholder_WhisperHTTPTests_builds() {}
