/// Byte-exact string comparison and hashing.
///
/// Swift's `String ==` compares by Unicode canonical equivalence, so `"\u{212A}"` (KELVIN SIGN)
/// equals `"K"`. JSON keys and signed fields are byte strings on the wire: two keys that differ in
/// bytes are different keys, as in JavaScript and JSON Schema.
@inline(__always)
func utf8Equal(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    let result = a.utf8.withContiguousStorageIfAvailable { aBytes in
        b.utf8.withContiguousStorageIfAvailable { bBytes in bytesEqual(aBytes, bBytes) }
    }
    if let result, let equal = result { return equal }
    return a.utf8.elementsEqual(b.utf8)
}

/// True if `string`'s UTF-8 is exactly `bytes`.
@inline(__always)
func utf8Equal(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard string.utf8.count == bytes.count else { return false }
    if let equal = string.utf8.withContiguousStorageIfAvailable({ bytesEqual($0, bytes) }) { return equal }
    return string.utf8.elementsEqual(bytes)
}

/// Equal-length byte comparison, eight bytes at a time.
@inline(__always)
func bytesEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = a.count
    guard count == b.count else { return false }
    guard count > 0, let pa = a.baseAddress, let pb = b.baseAddress else { return true }
    var i = 0
    while count - i >= 8 {
        let wa = UnsafeRawPointer(pa + i).loadUnaligned(as: UInt64.self)
        let wb = UnsafeRawPointer(pb + i).loadUnaligned(as: UInt64.self)
        if wa != wb { return false }
        i += 8
    }
    while i < count {
        if pa[i] != pb[i] { return false }
        i += 1
    }
    return true
}

/// A `String` wrapper whose equality and hash are over its UTF-8 bytes.
struct UTF8Key: Hashable {
    let string: String

    static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool { utf8Equal(lhs.string, rhs.string) }

    func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
