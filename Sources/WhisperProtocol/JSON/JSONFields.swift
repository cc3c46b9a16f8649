/// A JSON object read for the hot frames: every member found and validated as strictly as
/// `JSONParser` does (RFC 8259, limits, duplicate keys), keys decoded, but a string value stays a
/// byte range of `source` until someone asks for it. A `send_message` payload then costs one
/// member array instead of a string per field, and its signed and forwarded values are read
/// straight from the sender's bytes (docs/protocol.md "Canonical signing").
///
/// Numbers, literals and nested containers are decoded as the parser decodes them.
public struct JSONFields: Sendable {
    public enum Value: Sendable {
        /// A string; `escaped` when its raw bytes contain escapes (so they differ from its value).
        case string(escaped: Bool)
        case decoded(JSONValue)
    }

    public struct Member: Sendable, JSONScannedMember {
        public let key: String
        public let value: Value
        /// The value's bytes in `source` (a string's with its quotes).
        public let span: Range<Int>
    }

    /// The whole input; every span indexes into it.
    public let source: [UInt8]
    public let members: [Member]

    init(source: [UInt8], members: [Member]) {
        self.source = source
        self.members = members
    }

    public func index(forKey key: String) -> Int? { members.index(forKey: key) }

    public func contains(_ key: String) -> Bool { index(forKey: key) != nil }

    /// How the member's value was read (a string still undecoded); `nil` if absent.
    public subscript(valueOf key: String) -> Value? {
        guard let i = index(forKey: key) else { return nil }
        return members[i].value
    }

    /// The member's value, a string decoded now.
    public subscript(key: String) -> JSONValue? {
        guard let i = index(forKey: key) else { return nil }
        return value(of: members[i])
    }

    /// The exact bytes the sender wrote for the member's value (a string with its quotes and
    /// escapes), ready for `JSONWriter.raw`; `nil` if absent.
    public func raw(forKey key: String) -> ArraySlice<UInt8>? {
        guard let i = index(forKey: key) else { return nil }
        return source[members[i].span]
    }

    /// A string member's value as UTF-8: a slice of `source` when it has no escapes (no copy).
    /// `nil` if the member is absent or not a string.
    public func stringBytes(forKey key: String) -> ArraySlice<UInt8>? {
        guard let i = index(forKey: key), case .string(let escaped) = members[i].value else { return nil }
        let span = members[i].span
        guard escaped else { return source[(span.lowerBound + 1)..<(span.upperBound - 1)] }
        return Array(decodedString(span).utf8)[...]
    }

    /// The object as a `JSONObject` tree (members in order, with their spans), for handlers of
    /// frames that are not on the hot path.
    public var object: JSONObject {
        JSONObject(uncheckedMembers: members.map { JSONObject.Member(key: $0.key, value: value(of: $0), valueSpan: $0.span) })
    }

    private func value(of member: Member) -> JSONValue {
        switch member.value {
        case .decoded(let value):
            return value
        case .string(escaped: false):
            return .string(String(decoding: source[(member.span.lowerBound + 1)..<(member.span.upperBound - 1)], as: UTF8.self))
        case .string(escaped: true):
            return .string(decodedString(member.span))
        }
    }

    /// Decodes a string the scanner has already validated (so the fallback is unreachable).
    private func decodedString(_ span: Range<Int>) -> String {
        source.withUnsafeBufferPointer { buffer in
            var unlimited = JSONLimits.frame
            unlimited.maxStringBytes = .max
            var scanner = JSONScanner(bytes: buffer, limits: unlimited)
            scanner.index = span.lowerBound + 1
            return (try? scanner.parseStringBody()) ?? ""
        }
    }
}

extension JSONScanner {
    /// The object at `index` as `JSONFields` members (see `JSONFields`).
    mutating func scanFields() throws(JSONError) -> [JSONFields.Member] {
        try parseMembers { scanner, key, valueStart throws(JSONError) in
            let value: JSONFields.Value
            if valueStart < scanner.bytes.count, scanner.bytes[valueStart] == ASCII.quote {
                scanner.index += 1
                value = .string(escaped: try scanner.skipStringBody())
            } else {
                value = .decoded(try scanner.parseValue())
            }
            return JSONFields.Member(key: key, value: value, span: valueStart..<scanner.index)
        }
    }
}
