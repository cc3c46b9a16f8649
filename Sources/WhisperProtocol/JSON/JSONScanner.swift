/// The recursive-descent core of `JSONParser`. One scanner parses one document.
///
/// Indices are checked against `bytes.count` before every read; the buffer is never read past its end.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var index = 0
    var depth = 0
    /// Reused decode buffer for strings that contain escapes.
    var scratch: [UInt8] = []
    /// Key fingerprints of the objects being parsed, innermost last; each object uses the slots from
    /// its `base` on and truncates back on exit, so the buffer is allocated once per document.
    var keyFingerprints: [UInt64] = []
    static let fingerprintedKeysPerObject = 16

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        try scanDocument { scanner throws(JSONError) in try scanner.parseValue() }
    }

    /// The whole input as one value read by `value`, with nothing but whitespace around it.
    @inline(__always)
    mutating func scanDocument<Value>(_ value: (inout JSONScanner) throws(JSONError) -> Value) throws(JSONError) -> Value {
        guard bytes.count <= limits.maxInputBytes else { throw JSONError(.inputTooLarge, at: limits.maxInputBytes) }
        skipWhitespace()
        let result = try value(&self)
        skipWhitespace()
        guard index == bytes.count else { throw JSONError(.trailingData, at: index) }
        return result
    }

    // RFC 8259 §2: ws = *( %x20 / %x09 / %x0A / %x0D )
    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case ASCII.space, ASCII.lineFeed, ASCII.carriageReturn, ASCII.tab: index += 1
            default: return
            }
        }
    }

    /// The error for "expected something else here": end of input or the offending byte.
    func unexpected(at position: Int) -> JSONError {
        guard position < bytes.count else { return JSONError(.unexpectedEnd, at: position) }
        return JSONError(.unexpectedByte(bytes[position]), at: position)
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
        switch bytes[index] {
        case ASCII.quote:
            index += 1
            return .string(try parseStringBody())
        case ASCII.openBrace:
            return .object(try parseObject())
        case ASCII.openBracket:
            return .array(try parseArray())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return try parseNumber()
        default:
            throw unexpected(at: index)
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let length = literal.utf8CodeUnitCount
        guard bytes.count - index >= length else { throw JSONError(.invalidLiteral, at: index) }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        for offset in 0..<length where bytes[index + offset] != expected[offset] {
            throw JSONError(.invalidLiteral, at: index)
        }
        index += length
    }

    mutating func enterContainer() throws(JSONError) {
        depth += 1
        guard depth <= limits.maxDepth else { throw JSONError(.depthLimitExceeded, at: index) }
        index += 1
    }

    /// After an element or member: `,` → true (another follows), the container's `closing`
    /// byte → false (consumed); anything else is an error.
    @inline(__always)
    mutating func continuesContainer(closedBy closing: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
        let byte = bytes[index]
        index += 1
        if byte == ASCII.comma {
            skipWhitespace()
            return true
        }
        guard byte == closing else { throw JSONError(.unexpectedByte(byte), at: index - 1) }
        return false
    }

    mutating func parseArray() throws(JSONError) -> [JSONValue] {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == ASCII.closeBracket {
            index += 1
            return elements
        }
        while true {
            guard elements.count < limits.maxArrayElements else { throw JSONError(.tooManyElements, at: index) }
            elements.append(try parseValue())
            guard try continuesContainer(closedBy: ASCII.closeBracket) else { return elements }
        }
    }

    mutating func parseObject() throws(JSONError) -> JSONObject {
        JSONObject(uncheckedMembers: try parseMembers { scanner, key, valueStart throws(JSONError) in
            JSONObject.Member(key: key, value: try scanner.parseValue(), valueSpan: valueStart..<scanner.index)
        })
    }

    /// The object at `index` (its `{` not yet consumed): the keys decoded and checked unique, each
    /// value read by `member(&self, key, valueStart)`, which leaves `index` just past the value.
    /// Shared by the tree (`parseObject`) and the span scan (`scanFields`).
    @inline(__always)
    mutating func parseMembers<Member: JSONScannedMember>(
        _ member: (inout JSONScanner, String, Int) throws(JSONError) -> Member
    ) throws(JSONError) -> [Member] {
        try enterContainer()
        defer { depth -= 1 }
        var members: [Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == ASCII.closeBrace {
            index += 1
            return members
        }
        // A `send_message` payload has 12–15 members: one allocation, not three growths.
        members.reserveCapacity(Self.fingerprintedKeysPerObject)
        var keySet: Set<UTF8Key>?
        let base = keyFingerprints.count
        if keyFingerprints.capacity == 0 { keyFingerprints.reserveCapacity(2 * Self.fingerprintedKeysPerObject) }
        defer { keyFingerprints.removeSubrange(base...) }
        while true {
            guard index < bytes.count, bytes[index] == ASCII.quote else { throw unexpected(at: index) }
            let keyStart = index
            guard members.count < limits.maxObjectMembers else { throw JSONError(.tooManyMembers, at: keyStart) }
            index += 1
            let key = try parseStringBody()
            if members.count < Self.fingerprintedKeysPerObject {
                let fingerprint = keyFingerprint(key, rawStart: keyStart + 1, rawEnd: index - 1)
                for i in 0..<members.count
                where keyFingerprints[base + i] == fingerprint && utf8Equal(members[i].key, key) {
                    throw JSONError(.duplicateKey(key), at: keyStart)
                }
                keyFingerprints.append(fingerprint)
            } else {
                try checkUnique(key, at: keyStart, in: members, keySet: &keySet)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == ASCII.colon else { throw unexpected(at: index) }
            index += 1
            skipWhitespace()
            members.append(try member(&self, key, index))
            guard try continuesContainer(closedBy: ASCII.closeBrace) else { return members }
        }
    }

    /// Duplicate keys are rejected: `{"to":"A","to":"B"}` means different things to different parsers,
    /// which is unacceptable next to a signature. The first 16 keys are compared by a fingerprint of
    /// their bytes (then fully on a match); past that a hash set takes over (seeded SipHash, so no
    /// hash flooding), keeping the worst case linear in the input.
    func checkUnique<Member: JSONScannedMember>(
        _ key: String, at position: Int, in members: [Member], keySet: inout Set<UTF8Key>?
    ) throws(JSONError) {
        if keySet == nil {
            var set = Set<UTF8Key>(minimumCapacity: members.count * 2)
            for member in members { set.insert(UTF8Key(string: member.key)) }
            keySet = set
        }
        if keySet?.insert(UTF8Key(string: key)).inserted == false {
            throw JSONError(.duplicateKey(key), at: position)
        }
    }

    /// Length, first 8 and last 8 bytes of a key, mixed into 64 bits. Read from the input when the
    /// key had no escapes (then its decoded length equals its raw length: every escape shrinks).
    func keyFingerprint(_ key: String, rawStart: Int, rawEnd: Int) -> UInt64 {
        if key.utf8.count == rawEnd - rawStart {
            return Self.fingerprint(UnsafeBufferPointer(rebasing: bytes[rawStart..<rawEnd]))
        }
        var key = key
        return key.withUTF8 { Self.fingerprint($0) }
    }

    static func fingerprint(_ utf8: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = utf8.count
        var first: UInt64 = 0
        var last: UInt64 = 0
        if count >= 8, let base = utf8.baseAddress {
            first = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
            last = UnsafeRawPointer(base + (count - 8)).loadUnaligned(as: UInt64.self)
        } else {
            for byte in utf8 { first = first << 8 | UInt64(byte) }
        }
        return (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(count)
    }
}

/// An object member as the scanner collects it: the tree's `JSONObject.Member` or the span
/// scan's `JSONFields.Member`.
protocol JSONScannedMember {
    var key: String { get }
}

extension JSONObject.Member: JSONScannedMember {}

extension Array where Element: JSONScannedMember {
    /// The position of the member named `key` (compared as UTF-8 bytes, no normalisation).
    func index(forKey key: String) -> Int? {
        let found = key.utf8.withContiguousStorageIfAvailable { keyBytes -> Int? in
            for i in indices where utf8Equal(self[i].key, keyBytes) { return i }
            return nil
        }
        if let found { return found }
        for i in indices where utf8Equal(self[i].key, key) { return i }
        return nil
    }
}
