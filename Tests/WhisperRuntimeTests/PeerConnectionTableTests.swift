import Synchronization
import Testing
import WhisperRuntime

@Suite struct PeerConnectionTableTests {
    @Test func admit_refusesPastTheLimit_perAddress_andReadmitsAfterARelease() throws {
        let refused = Atomic<Int>(0)
        let table = PeerConnectionTable(limitPerPeer: 2) { _ in refused.add(1, ordering: .relaxed) }
        let a1 = try SocketAddress(host: "10.0.0.1", port: 1000), a2 = try SocketAddress(host: "10.0.0.1", port: 1001)
        let b = try SocketAddress(host: "10.0.0.2", port: 1000)
        #expect(table.admit(a1, now: 0) && table.admit(a2, now: 0))
        #expect(!table.admit(a1, now: 0), "a third connection of the same address, whatever its port")
        #expect(table.admit(b, now: 0), "another address has its own count")
        #expect(refused.load(ordering: .relaxed) == 1)
        table.release(a2)
        #expect(table.openConnections(of: a1) == 1)
        #expect(table.admit(a1, now: 0))
        table.release(a1)
        table.release(a1)
        table.release(a1)  // one release too many never goes negative
        #expect(table.openConnections(of: a1) == 0)
        #expect(table.admit(a1, now: 0) && table.admit(a1, now: 0) && !table.admit(a1, now: 0))
    }

    @Test func admit_distinguishesIPv6Addresses_andZeroMeansNoLimit() throws {
        let table = PeerConnectionTable(limitPerPeer: 1)
        #expect(table.admit(try SocketAddress(host: "::1", port: 1), now: 0))
        #expect(!table.admit(try SocketAddress(host: "::1", port: 2), now: 0))
        #expect(table.admit(try SocketAddress(host: "2001:db8::1", port: 1), now: 0))
        let off = PeerConnectionTable(limitPerPeer: 0)
        let peer = try SocketAddress(host: "127.0.0.1", port: 1)
        #expect((0..<1000).allSatisfy { _ in off.admit(peer, now: 0) })
    }

    @Test func aRate_refusesAnAddressPastItsBurst_untilTokensRefill_andCountsWhy() throws {
        let refusals = Mutex<[PeerConnectionTable.Refusal]>([])
        let table = PeerConnectionTable(limitPerPeer: 0, rate: PeerRateLimiter(perSecond: 2, burst: 3)) { why in
            refusals.withLock { $0.append(why) }
        }
        let fast = try SocketAddress(host: "192.0.2.1", port: 1), bystander = try SocketAddress(host: "192.0.2.2", port: 1)
        let second: UInt64 = 1_000_000_000
        #expect((0..<3).allSatisfy { _ in table.admit(fast, now: 10 * second) }, "the burst")
        #expect(!table.admit(fast, now: 10 * second), "burst + 1")
        #expect(table.admit(bystander, now: 10 * second), "another address has its own bucket")
        #expect(!table.admit(fast, now: 10 * second + second / 4), "a quarter second refills half a token")
        #expect(table.admit(fast, now: 10 * second + second / 2), "half a second refills one at 2/s")
        #expect(!table.admit(fast, now: 10 * second), "a loop whose clock reads earlier refills nothing")
        #expect(refusals.withLock { $0 } == [.rate, .rate, .rate])
    }

    @Test func aRefusalByRate_isNotCountedAgainstTheConcurrentCap() throws {
        let table = PeerConnectionTable(limitPerPeer: 2, rate: PeerRateLimiter(perSecond: 1, burst: 1))
        let peer = try SocketAddress(host: "192.0.2.1", port: 1)
        #expect(table.admit(peer, now: 0) && !table.admit(peer, now: 0))
        #expect(table.openConnections(of: peer) == 1)
    }
}
