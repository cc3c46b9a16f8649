import Testing
import WhisperRuntime

@Suite struct PeerRateLimiterTests {
    @Test func ipv6Clients_shareTheBucketOfTheirSlash64() throws {
        let limiter = PeerRateLimiter(perSecond: 1, burst: 2)
        #expect(limiter.take(try SocketAddress(host: "2001:db8:1:2::1", port: 1), now: 0))
        #expect(limiter.take(try SocketAddress(host: "2001:db8:1:2:ffff::9", port: 1), now: 0))
        #expect(!limiter.take(try SocketAddress(host: "2001:db8:1:2::77", port: 1), now: 0), "the same /64")
        #expect(limiter.take(try SocketAddress(host: "2001:db8:1:3::1", port: 1), now: 0), "the next /64")
    }

    @Test func theTable_staysBounded_evictingTheGenerationNotSeenSince() throws {
        let limiter = PeerRateLimiter(perSecond: 1, burst: 1, capacity: 100)
        let kept = try SocketAddress(host: "198.51.100.1", port: 1)
        #expect(limiter.take(kept, now: 0) && !limiter.take(kept, now: 0))
        for i in 0..<1000 {
            _ = limiter.take(try SocketAddress(host: "10.0.\(i / 256).\(i % 256)", port: 1), now: 0)
            if i % 40 == 0 { _ = limiter.take(kept, now: 0) }  // seen again: moves to the current generation
            #expect(limiter.trackedAddresses <= 100)
        }
        #expect(!limiter.take(kept, now: 0), "an address seen in every generation keeps its empty bucket")
        let forgotten = try SocketAddress(host: "10.0.0.1", port: 1)
        #expect(limiter.take(forgotten, now: 0), "an address not seen for two generations starts full again")
    }
}
