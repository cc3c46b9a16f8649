import Testing
import WhisperOps
import WhisperRuntime
@testable import WhisperStorage

/// URL parsing itself is `RedisEndpoint`'s (WhisperOpsTests/RedisEndpointTests).
@Suite("Redis configuration (no server)")
struct RedisConfigurationTests {
    @Test func initEndpoint_copiesAddressCredentialsAndDatabase() throws {
        let configuration = RedisConfiguration(endpoint: try RedisEndpoint.parse("redis://relay:s%40cret@[::1]:7000/4"))
        #expect(configuration == RedisConfiguration(host: "::1", port: 7000, username: "relay", password: "s@cret",
                                                    database: 4))
    }

    @Test func initURL_readsBarePasswordLikeRedisEndpoint() throws {
        let configuration = try RedisConfiguration(url: "redis://secret@10.0.0.5")
        #expect(configuration.username == nil)
        #expect(configuration.password == "secret")
    }

    @Test func redactedDescription_omitsCredentials() throws {
        let configuration = try RedisConfiguration(url: "redis://:s%40cret@cache.internal:6380/4")
        #expect(configuration.redactedDescription == "redis://cache.internal:6380/4")
    }

    @Test func rediss_carriesTLS_intoTheDescriptionAndTheClientContext() throws {
        var configuration = RedisConfiguration(endpoint: try RedisEndpoint.parse("rediss://:s%40cret@10.0.0.5:6380/1"))
        #expect(configuration.tls == RedisTLSSettings())
        #expect(configuration.redactedDescription == "rediss://10.0.0.5:6380/1")
        #expect(try configuration.clientTLS()?.serverName == "10.0.0.5")
        configuration.tls?.serverName = "cache.internal"
        #expect(try configuration.clientTLS()?.serverName == "cache.internal")
        #expect(try RedisConfiguration(url: "redis://10.0.0.5").clientTLS() == nil)
    }

    @Test func anUnreadableCAFile_isAnErrorNamingIt() throws {
        var configuration = try RedisConfiguration(url: "rediss://10.0.0.5")
        configuration.tls?.caFile = "/nonexistent/redis-ca.pem"
        let error = #expect(throws: TLSConfigError.self) { try configuration.clientTLS() }
        #expect(error?.reason.hasPrefix("CA file /nonexistent/redis-ca.pem:") == true, "\(String(describing: error))")
    }

    @Test func clusterEndpoint_becomesSeeds_andItsDescriptionListsThem() throws {
        var endpoint = try RedisEndpoint.parse("redis://:pw@10.0.0.1:7000,10.0.0.2:7001/")
        endpoint.cluster = true
        let configuration = RedisConfiguration(endpoint: endpoint)
        #expect(configuration.cluster)
        #expect(configuration.seeds == [RedisNodeAddress(host: "10.0.0.1", port: 7000), RedisNodeAddress(host: "10.0.0.2", port: 7001)])
        #expect(configuration.redactedDescription == "redis://10.0.0.1:7000,10.0.0.2:7001/0 (cluster)")
        #expect(!RedisConfiguration(endpoint: try RedisEndpoint.parse("redis://10.0.0.1:7000")).cluster)
    }
}
