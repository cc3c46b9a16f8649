import Testing

@Test func placeholder_WhisperRuntimeTests_builds() {}
