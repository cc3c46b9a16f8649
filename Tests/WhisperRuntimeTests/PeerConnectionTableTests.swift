import Synchronization
import Testing
import WhisperRuntime

@Suite struct PeerConnectionTableTests {
    @Test func admit_refusesPastTheLimit_perAddress_andReadmitsAfterARelease() throws {
        let refused = Atomic<Int>(0)
        let table = PeerConnectionTable(limitPerPeer: 2) { refused.add(1, ordering: .relaxed) }
        let a1 = try SocketAddress(host: "10.0.0.1", port: 1000), a2 = try SocketAddress(host: "10.0.0.1", port: 1001)
        let b = try SocketAddress(host: "10.0.0.2", port: 1000)
        #expect(table.admit(a1) && table.admit(a2))
        #expect(!table.admit(a1), "a third connection of the same address, whatever its port")
        #expect(table.admit(b), "another address has its own count")
        #expect(refused.load(ordering: .relaxed) == 1)
        table.release(a2)
        #expect(table.openConnections(of: a1) == 1)
        #expect(table.admit(a1))
        table.release(a1)
        table.release(a1)
        table.release(a1)  // one release too many never goes negative
        #expect(table.openConnections(of: a1) == 0)
        #expect(table.admit(a1) && table.admit(a1) && !table.admit(a1))
    }

    @Test func admit_distinguishesIPv6Addresses_andZeroMeansNoLimit() throws {
        let table = PeerConnectionTable(limitPerPeer: 1)
        #expect(table.admit(try SocketAddress(host: "::1", port: 1)))
        #expect(!table.admit(try SocketAddress(host: "::1", port: 2)))
        #expect(table.admit(try SocketAddress(host: "2001:db8::1", port: 1)))
        let off = PeerConnectionTable(limitPerPeer: 0)
        let peer = try SocketAddress(host: "127.0.0.1", port: 1)
        #expect((0..<1000).allSatisfy { _ in off.admit(peer) })
    }
}
