import Testing
@testable import WhisperStorage

@Suite("RedisClusterMap: CLUSTER SLOTS read defensively")
struct RedisClusterMapTests {
    private let asked = RedisNodeAddress(host: "10.0.0.9", port: 7000)

    private func node(_ host: String, _ port: Int64, id: String = "abc") -> RedisValue {
        .array([.bulk(Array(host.utf8)), .integer(port), .bulk(Array(id.utf8))])
    }

    private func range(_ start: Int64, _ end: Int64, _ nodes: RedisValue...) -> RedisValue {
        .array([.integer(start), .integer(end)] + nodes)
    }

    @Test func threeShards_mapEverySlotToItsPrimary_withReplicas() throws {
        let reply = RedisValue.array([
            range(0, 5460, node("127.0.0.1", 7000), node("127.0.0.1", 7003)),
            range(5461, 10922, node("127.0.0.1", 7001), node("127.0.0.1", 7004)),
            range(10923, 16383, node("127.0.0.1", 7002), node("127.0.0.1", 7005)),
        ])
        let map = try RedisClusterMap.parse(slots: reply, answeredBy: asked).get()
        #expect(map.assignedSlots == 16_384)
        #expect(map.primary(forSlot: 0) == RedisNodeAddress(host: "127.0.0.1", port: 7000))
        #expect(map.primary(forSlot: 5460) == RedisNodeAddress(host: "127.0.0.1", port: 7000))
        #expect(map.primary(forSlot: 5461) == RedisNodeAddress(host: "127.0.0.1", port: 7001))
        #expect(map.primary(forSlot: 16383) == RedisNodeAddress(host: "127.0.0.1", port: 7002))
        #expect(map.primary(forSlot: 16384) == nil)
        #expect(map.primary(forSlot: -1) == nil)
        #expect(map.primaries.map(\.port) == [7000, 7001, 7002])
        #expect(map.shards[1].replicas == [RedisNodeAddress(host: "127.0.0.1", port: 7004)])
        #expect(map.nodes.map(\.port) == [7000, 7001, 7002, 7003, 7004, 7005])
    }

    @Test func severalRangesOfOnePrimary_areOneShard_andGapsStayUnassigned() throws {
        let reply = RedisValue.array([
            range(0, 99, node("a", 1)),
            range(200, 299, node("a", 1)),
            range(100, 150, node("b", 2)),
        ])
        let map = try RedisClusterMap.parse(slots: reply, answeredBy: asked).get()
        #expect(map.shards.count == 2)
        #expect(map.assignedSlots == 251)
        #expect(map.primary(forSlot: 250)?.host == "a")
        #expect(map.primary(forSlot: 175) == nil)
    }

    @Test func emptyHost_isTheNodeThatAnswered_andExtraFieldsAreIgnored() throws {
        let metadata = RedisValue.array([.bulk(Array("hostname".utf8)), .bulk(Array("r1".utf8))])
        let reply = RedisValue.array([
            .array([.integer(0), .integer(16383), .array([.bulk([]), .integer(7000), .bulk(Array("id".utf8)), metadata])]),
        ])
        let map = try RedisClusterMap.parse(slots: reply, answeredBy: asked).get()
        #expect(map.primary(forSlot: 42) == RedisNodeAddress(host: "10.0.0.9", port: 7000))
    }

    @Test func emptyReply_isAMapWithNoSlot() throws {
        let map = try RedisClusterMap.parse(slots: .array([]), answeredBy: asked).get()
        #expect(map.assignedSlots == 0)
        #expect(map.primaries.isEmpty)
    }

    @Test(arguments: [
        (RedisValue.error("ERR This instance has cluster support disabled"), RedisClusterMap.ParseError.notAnArray),
        (.bulk(nil), .notAnArray),
        (.array([.integer(0)]), .malformedRange(index: 0)),
        (.array([.array([.integer(0), .integer(10)])]), .malformedRange(index: 0)),  // no primary
        (.array([.array([.integer(10), .integer(5), .array([.bulk(Array("a".utf8)), .integer(1)])])]), .malformedRange(index: 0)),
        (.array([.array([.integer(0), .integer(16384), .array([.bulk(Array("a".utf8)), .integer(1)])])]), .malformedRange(index: 0)),
        (.array([.array([.integer(-1), .integer(5), .array([.bulk(Array("a".utf8)), .integer(1)])])]), .malformedRange(index: 0)),
        (.array([.array([.bulk(Array("0".utf8)), .integer(5), .array([.bulk(Array("a".utf8)), .integer(1)])])]), .malformedRange(index: 0)),
        (.array([.array([.integer(0), .integer(5), .array([.bulk(Array("a".utf8)), .integer(0)])])]), .malformedNode(index: 0)),
        (.array([.array([.integer(0), .integer(5), .array([.bulk(Array("a".utf8)), .integer(65_536)])])]), .malformedNode(index: 0)),
        (.array([.array([.integer(0), .integer(5), .array([.bulk(Array("a".utf8))])])]), .malformedNode(index: 0)),
        (.array([.array([.integer(0), .integer(5), .array([.integer(1), .integer(7000)])])]), .malformedNode(index: 0)),
        (.array([.array([.integer(0), .integer(5), .array([.bulk(Array("?".utf8)), .integer(7000)])])]), .malformedNode(index: 0)),
        (.array([.array([.integer(0), .integer(5), .bulk(Array("a:1".utf8))])]), .malformedNode(index: 0)),
        (.array([
            .array([.integer(0), .integer(5), .array([.bulk(Array("a".utf8)), .integer(1)])]),
            .array([.integer(5), .integer(9), .array([.bulk(Array("b".utf8)), .integer(2)])]),
        ]), .overlappingRange(index: 1)),
    ])
    func malformedReply_isRefusedWhole(reply: RedisValue, expected: RedisClusterMap.ParseError) {
        #expect(RedisClusterMap.parse(slots: reply, answeredBy: asked) == .failure(expected))
    }

    @Test func moved_reassignsOneSlot_toANewOrKnownPrimary() throws {
        var map = try RedisClusterMap.parse(slots: .array([range(0, 16383, node("a", 1))]), answeredBy: asked).get()
        map.assign(slot: 7, to: RedisNodeAddress(host: "b", port: 2))
        #expect(map.primary(forSlot: 7) == RedisNodeAddress(host: "b", port: 2))
        #expect(map.primary(forSlot: 8) == RedisNodeAddress(host: "a", port: 1))
        map.assign(slot: 9, to: RedisNodeAddress(host: "b", port: 2))
        #expect(map.shards.count == 2)
        map.assign(slot: 99_999, to: RedisNodeAddress(host: "c", port: 3))
        #expect(map.shards.count == 2)
    }

    @Test func redirects_parse_andMalformedOnesAreNotRedirects() {
        let moved = Redirect("MOVED 3999 127.0.0.1:6381")
        #expect(moved?.moved == true && moved?.slot == 3999 && moved?.node == RedisNodeAddress(host: "127.0.0.1", port: 6381))
        let ask = Redirect("ASK 0 [::1]:7000")
        #expect(ask?.moved == false && ask?.slot == 0 && ask?.node == RedisNodeAddress(host: "::1", port: 7000))
        #expect(Redirect("ASK 0 ::1:7000")?.node == RedisNodeAddress(host: "::1", port: 7000))
        for bad in ["MOVED", "MOVED 1", "MOVED x a:1", "MOVED 16384 a:1", "MOVED -1 a:1", "MOVED 1 a", "MOVED 1 a:0",
                    "MOVED 1 a:70000", "ASKING 1 a:1", "ERR MOVED 1 a:1", "MOVED 1 a:1 extra"] {
            #expect(Redirect(bad) == nil, "\(bad)")
        }
    }
}
