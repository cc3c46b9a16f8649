/// Byte-exact string comparison and hashing.
///
/// Swift's `String ==` compares by Unicode canonical equivalence, so `"\u{212A}"` (KELVIN SIGN)
/// equals `"K"`. JSON keys and signed fields are byte strings on the wire: two keys that differ in
/// bytes are different keys, as in JavaScript and JSON Schema.
@inline(__always)
func utf8Equal(_ a: String, _ b: String) -> Bool {
    let aCount = a.utf8.count
    guard aCount == b.utf8.count else { return false }
    let fast = a.utf8.withContiguousStorageIfAvailable { aBytes in
        b.utf8.withContiguousStorageIfAvailable { bBytes in
            aBytes.elementsEqual(bBytes)
        }
    }
    if let fast, let result = fast { return result }
    return a.utf8.elementsEqual(b.utf8)
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
