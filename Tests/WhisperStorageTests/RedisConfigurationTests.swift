import Testing
@testable import WhisperStorage

@Suite("Redis URL parsing (no server)")
struct RedisConfigurationTests {
    @Test func fullURL_withPasswordAndDatabase() throws {
        let configuration = try RedisConfiguration(url: "redis://:s%40cret@cache.internal:6380/4")
        #expect(configuration.host == "cache.internal")
        #expect(configuration.port == 6380)
        #expect(configuration.username == nil)
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == 4)
        #expect(configuration.redactedDescription == "redis://cache.internal:6380/4")
    }

    @Test func defaults_portAndDatabase() throws {
        let configuration = try RedisConfiguration(url: "redis://10.0.0.5")
        #expect(configuration.port == 6379)
        #expect(configuration.database == 0)
        #expect(configuration.password == nil)
    }

    @Test func aclUser_andIPv6Host() throws {
        let configuration = try RedisConfiguration(url: "redis://relay:pw@[::1]:7000/0")
        #expect(configuration.username == "relay")
        #expect(configuration.password == "pw")
        #expect(configuration.host == "::1")
        #expect(configuration.port == 7000)
    }

    @Test(arguments: ["http://h:1/0", "rediss://h:6379/0", "redis://h:0/0", "redis://h:65536/0", "redis://h:x/0",
                      "redis://h:1/-1", "redis://h:1/db", "redis://:1/0", "redis://[::1/0", "redis://:p%zz@h/0"])
    func invalidURLs_areRefused(_ url: String) {
        #expect(throws: RedisError.self) { _ = try RedisConfiguration(url: url) }
    }
}
