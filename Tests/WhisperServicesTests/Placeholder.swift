import Testing

@Test func placeholder_services_builds() {}
