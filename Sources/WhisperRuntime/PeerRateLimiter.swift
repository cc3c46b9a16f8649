#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// New connections per client address, as a token bucket per address on one node
/// (docs/operations.md "Hostile clients"): `burst` connections at once, then `perSecond`. It
/// defends against one address opening connections fast — the cheap attack — without capping
/// how many it holds, which behind a carrier's NAT (CGNAT) is thousands of honest phones.
///
/// Memory is bounded: buckets live in two generations of at most `capacity / 2` addresses each;
/// when the current one fills, the previous one (addresses not seen since) is dropped. A dropped
/// address starts again with a full bucket, which is what it would have after a quiet spell.
/// IPv6 clients are keyed by their /64, the block one subscriber gets.
public final class PeerRateLimiter: Sendable {
    public let perSecond: Int
    public let burst: Int
    public let capacity: Int

    private struct Bucket {
        var tokens: Double
        var updatedAt: UInt64
    }

    private struct Generations {
        var current: [PeerHost: Bucket] = [:]
        var previous: [PeerHost: Bucket] = [:]
    }

    private let generations = Mutex(Generations())

    /// `perSecond` ≥ 1 and `burst` ≥ 1; `capacity` addresses at most are remembered.
    public init(perSecond: Int, burst: Int, capacity: Int = 65_536) {
        self.perSecond = max(1, perSecond)
        self.burst = max(1, burst)
        self.capacity = max(2, capacity)
    }

    /// Takes one token from `peer`'s bucket; false when it is empty. `now` is monotonic nanoseconds.
    public func take(_ peer: SocketAddress, now: UInt64) -> Bool {
        let key = peer.host.subscriberBlock
        let burst = Double(self.burst), refillPerNanosecond = Double(perSecond) / 1e9, half = capacity / 2
        return generations.withLock { tables in
            var bucket = tables.current[key] ?? tables.previous.removeValue(forKey: key)
                ?? Bucket(tokens: burst, updatedAt: now)
            // Loops read the clock at different moments: never let time run backwards.
            if now > bucket.updatedAt {
                bucket.tokens = min(burst, bucket.tokens + Double(now - bucket.updatedAt) * refillPerNanosecond)
                bucket.updatedAt = now
            }
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            if tables.current[key] == nil, tables.current.count >= half {
                tables.previous = tables.current
                tables.current = [:]
            }
            tables.current[key] = bucket
            return allowed
        }
    }

    /// Addresses remembered now (both generations).
    public var trackedAddresses: Int {
        generations.withLock { $0.current.count + $0.previous.count }
    }
}

extension PeerHost {
    /// The key of a rate limit: the address for IPv4, its /64 for IPv6.
    var subscriberBlock: PeerHost {
        family == AF_INET6 ? PeerHost(family: family, high: high, low: 0) : self
    }
}
