/// The Redis Cluster hash slot of a key: CRC16 (XMODEM: polynomial 0x1021, initial value 0, no
/// reflection) of the key mod 16384 — or, when the key has a hash tag, of the tag alone
/// (Redis Cluster specification, "Hash tags"): the bytes between the first `{` and the first `}`
/// after it, if there are any. `{user1000}.following` and `{user1000}.followers` share a slot;
/// `foo{}{bar}` hashes whole (the first tag is empty), `foo{{bar}}zap` hashes `{bar`.
public enum RedisSlot {
    public static let count = 16_384

    /// The slot of `key`. Every command of every message on a cluster passes here, so the
    /// concrete forms read contiguous bytes; the generic one copies its key into them.
    public static func of(_ key: String) -> Int {
        var key = key
        return key.withUTF8 { of(bytes: $0) }
    }

    public static func of(_ key: ArraySlice<UInt8>) -> Int { key.withUnsafeBufferPointer { of(bytes: $0) } }

    public static func of(_ key: [UInt8]) -> Int { key.withUnsafeBufferPointer { of(bytes: $0) } }

    public static func of<Key: Collection<UInt8>>(_ key: Key) -> Int { of(Array(key)) }

    private static func of(bytes key: UnsafeBufferPointer<UInt8>) -> Int {
        Int(crc16(hashed(key)) & 0x3FFF)  // mod 16384
    }

    /// The part of `key` that is hashed: the hash tag when there is a non-empty one, else all of it.
    public static func hashed<Key: Collection<UInt8>>(_ key: Key) -> Key.SubSequence {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")) else { return key[...] }
        let afterOpen = key.index(after: open)
        guard let close = key[afterOpen...].firstIndex(of: UInt8(ascii: "}")), close != afterOpen else { return key[...] }
        return key[afterOpen..<close]
    }

    /// CRC16/XMODEM, table-driven (the table Redis's `crc16.c` spells out).
    public static func crc16<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt16 {
        table.withUnsafeBufferPointer { table in
            var crc: UInt16 = 0
            for byte in bytes {
                crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
            }
            return crc
        }
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }
}
