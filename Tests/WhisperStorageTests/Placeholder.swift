import Testing

@Test func placeholder_WhisperStorageTests_builds() {}
