import Testing

@Test func placeholder_WhisperOpsTests_builds() {}
