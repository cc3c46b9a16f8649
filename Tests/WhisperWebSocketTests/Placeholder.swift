import Testing

@Test func placeholder_WhisperWebSocketTests_builds() {}
