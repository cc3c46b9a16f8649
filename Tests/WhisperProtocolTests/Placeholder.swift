import Testing

@Test func placeholder_WhisperProtocolTests_builds() {}
