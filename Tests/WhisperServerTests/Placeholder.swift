import Testing

@Test func placeholder_WhisperServerTests_builds() {}
