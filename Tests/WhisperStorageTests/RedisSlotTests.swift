import Testing
@testable import WhisperStorage

@Suite("RedisSlot: CRC16 and hash tags as the Redis Cluster specification defines them")
struct RedisSlotTests {
    @Test func crc16_ofTheSpecVector_is0x31C3() {
        #expect(RedisSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(RedisSlot.crc16([UInt8]()) == 0)
    }

    @Test func keysWithTheSameHashTag_shareASlot() {
        #expect(RedisSlot.of("{user1000}.following") == RedisSlot.of("{user1000}.followers"))
        #expect(RedisSlot.of("{user1000}.following") == RedisSlot.of("user1000"))
    }

    @Test func emptyFirstTag_hashesTheWholeKey() {
        #expect(String(decoding: RedisSlot.hashed(Array("foo{}{bar}".utf8)), as: UTF8.self) == "foo{}{bar}")
        #expect(RedisSlot.of("foo{}{bar}") == Int(RedisSlot.crc16(Array("foo{}{bar}".utf8)) % 16_384))
    }

    @Test func tagRunsFromTheFirstOpenBraceToTheNextClose() {
        #expect(String(decoding: RedisSlot.hashed(Array("foo{{bar}}zap".utf8)), as: UTF8.self) == "{bar")
        #expect(String(decoding: RedisSlot.hashed(Array("foo{bar}{zap}".utf8)), as: UTF8.self) == "bar")
        #expect(RedisSlot.of("foo{bar}{zap}") == RedisSlot.of("bar"))
        #expect(RedisSlot.of("foo{{bar}}zap") == RedisSlot.of("{bar"))
    }

    @Test func unclosedBrace_hashesTheWholeKey() {
        #expect(String(decoding: RedisSlot.hashed(Array("foo{bar".utf8)), as: UTF8.self) == "foo{bar")
        #expect(String(decoding: RedisSlot.hashed(Array("}foo{".utf8)), as: UTF8.self) == "}foo{")
    }

    @Test func everyFormOfAKey_findsTheSameSlot() {
        for key in ["foo", "{user1000}.following", "foo{}{bar}", "foo{{bar}}zap", "}foo{", "", "ümlaut{ü}", "pending:{ABCDEFGH23}"] {
            let bytes = Array(key.utf8)
            let slot = RedisSlot.of(key)
            #expect(RedisSlot.of(bytes) == slot, "\(key)")
            #expect(RedisSlot.of(bytes[...]) == slot, "\(key)")
            #expect(RedisSlot.of(([0x2A] + bytes).dropFirst()) == slot, "\(key): a slice not starting at 0")
            #expect(RedisSlot.of(key.utf8) == slot, "\(key): the generic form")
            #expect(slot == Int(RedisSlot.crc16(RedisSlot.hashed(bytes)) & 0x3FFF), "\(key)")
        }
    }

    /// Values `CLUSTER KEYSLOT` gives on Redis 7 (also checked against a live node in
    /// RedisClusterTests).
    @Test func knownSlots() {
        #expect(RedisSlot.of("foo") == 12_182)
        #expect(RedisSlot.of("bar") == 5_061)
        #expect(RedisSlot.of("hello") == 866)
        #expect(RedisSlot.of("") == 0)
        #expect(RedisSlot.of([0xFF, 0x00, 0x7B]) == Int(RedisSlot.crc16([0xFF, 0x00, 0x7B]) & 0x3FFF))
    }
}
