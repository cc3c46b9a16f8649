import Testing
import WhisperOps

@Suite struct RedisEndpointTests {
    @Test func parse_fillsDefaultPortAndDatabase() throws {
        #expect(try RedisEndpoint.parse("redis://cache") == RedisEndpoint(host: "cache", port: 6379, database: 0))
        #expect(try RedisEndpoint.parse("redis://cache/") == RedisEndpoint(host: "cache"))
        #expect(try RedisEndpoint.parse("REDIS://cache:7000") == RedisEndpoint(host: "cache", port: 7000))
    }

    @Test func parse_readsPasswordUsernameAndDatabase() throws {
        let classic = try RedisEndpoint.parse("redis://:p%40ss:word@10.0.0.5:6380/3")
        #expect(classic == RedisEndpoint(host: "10.0.0.5", port: 6380, database: 3, password: Secret("p@ss:word")))
        let acl = try RedisEndpoint.parse("redis://relay:pw@cache:6379/0")
        #expect(acl.username == "relay")
        #expect(acl.password?.unredacted == "pw")
    }

    /// `redis-cli -u` reads a userinfo without a colon as a password, and an ACL user without
    /// a password could not authenticate anyway.
    @Test func parse_readsUserInfoAsPassword_whenItHasNoColon() throws {
        let endpoint = try RedisEndpoint.parse("redis://s%40cret@cache:6380/1")
        #expect(endpoint == RedisEndpoint(host: "cache", port: 6380, database: 1, password: Secret("s@cret")))
    }

    @Test func parse_acceptsBracketedIPv6() throws {
        #expect(try RedisEndpoint.parse("redis://[::1]:6390/1") == RedisEndpoint(host: "::1", port: 6390, database: 1))
        #expect(try RedisEndpoint.parse("redis://[::1]") == RedisEndpoint(host: "::1"))
        #expect(try RedisEndpoint.parse("redis://relay:pw@[::1]:7000/0")
            == RedisEndpoint(host: "::1", port: 7000, username: "relay", password: Secret("pw")))
    }

    @Test(arguments: ["redis://", "redis://host:0", "redis://host:99999", "redis://host:65536", "redis://host:x",
                      "redis://host/x", "redis://host/-1", "redis://host/1?x=y", "redis://:%zz@host", "redis://%zz@host",
                      "tcp://host", "rediss://", "rediss:/host", "redis://ho st", "redis://::1:6379", "redis://[::1/0",
                      "redis://:1/0"])
    func parse_rejectsMalformedURLs(_ text: String) {
        #expect(throws: ConfigError.self) { try RedisEndpoint.parse(text) }
    }

    @Test func parse_hidesBarePasswordInError_whenURLIsMalformed() {
        let error = #expect(throws: ConfigError.self) { try RedisEndpoint.parse("redis://topsecret@cache:0") }
        #expect(error?.description.contains("topsecret") == false, "\(String(describing: error))")
        #expect(error?.description.contains("redis://***@cache:0") == true, "\(String(describing: error))")
    }

    @Test func parse_rediss_meansTLS() throws {
        let endpoint = try RedisEndpoint.parse("REDISS://relay:pw@cache:6380/2")
        #expect(endpoint == RedisEndpoint(host: "cache", port: 6380, database: 2, username: "relay", password: Secret("pw"),
                                          tls: RedisTLSSettings()))
        #expect(endpoint.description == "rediss://relay:***@cache:6380/2")
    }

    @Test func description_hidesThePassword() throws {
        let endpoint = try RedisEndpoint.parse("redis://:topsecret@[::1]:6379/2")
        #expect(endpoint.description == "redis://:***@[::1]:6379/2")
    }

    @Test func parse_readsCommaSeparatedSeeds_withSharedCredentials() throws {
        let endpoint = try RedisEndpoint.parse("redis://relay:pw@h1:7000,h2,[::1]:7002/")
        #expect(endpoint.host == "h1" && endpoint.port == 7000 && endpoint.username == "relay")
        #expect(endpoint.additionalNodes == [RedisEndpoint.Node(host: "h2", port: 6379), RedisEndpoint.Node(host: "::1", port: 7002)])
        #expect(endpoint.description == "redis://relay:***@h1:7000,h2:6379,[::1]:7002/0")
        #expect(!endpoint.cluster)  // WHISPER_REDIS_CLUSTER decides, not the URL
    }

    @Test(arguments: ["redis://h1:7000,/", "redis://,h1/", "redis://h1:7000,,h2/", "redis://h1,h2:0/", "redis://h1,h2:x/"])
    func parse_refusesAnEmptyOrMalformedSeed(url: String) {
        #expect(throws: ConfigError.self) { try RedisEndpoint.parse(url) }
    }

    @Test func parse_refusesMoreThan64Seeds() {
        let url = "redis://" + (1...65).map { "h\($0)" }.joined(separator: ",") + "/"
        #expect(throws: ConfigError.self) { try RedisEndpoint.parse(url) }
    }
}
