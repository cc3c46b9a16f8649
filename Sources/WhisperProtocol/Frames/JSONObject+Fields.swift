// Typed field access for payload validation. Each accessor throws a `PayloadError` naming the
// field, so handlers read top to bottom:
//
//     let messageId = try payload.requireUUID("messageId")
//     let nonce = try payload.requireBase64("nonce", exactByteCount: 24)

/// What payload validation reads: a `JSONObject` tree, or the `JSONFields` of a hot frame.
public protocol JSONFieldSource {
    subscript(key: String) -> JSONValue? { get }
    /// The first key, in member order, that is not in `allowed`.
    func firstKey(notIn allowed: Set<String>) -> String?
}

extension JSONObject: JSONFieldSource {
    public func firstKey(notIn allowed: Set<String>) -> String? {
        members.first { !allowed.contains($0.key) }?.key
    }
}

extension JSONFields: JSONFieldSource {
    public func firstKey(notIn allowed: Set<String>) -> String? {
        members.first { !allowed.contains($0.key) }?.key
    }
}

extension JSONFieldSource {
    public func requireValue(_ key: String) throws(PayloadError) -> JSONValue {
        guard let value = self[key] else { throw .missingField(key) }
        return value
    }

    public func requireString(_ key: String) throws(PayloadError) -> String {
        guard case let .string(value) = try requireValue(key) else { throw .wrongType(field: key, expected: .string) }
        return value
    }

    /// Absent or `null` → `nil`; any other non-string → error.
    public func optionalString(_ key: String) throws(PayloadError) -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case let .string(value)?: return value
        case .some: throw .wrongType(field: key, expected: .string)
        }
    }

    public func requireInt64(_ key: String) throws(PayloadError) -> Int64 {
        guard case let .int(value) = try requireValue(key) else { throw .wrongType(field: key, expected: .int) }
        return value
    }

    public func optionalInt64(_ key: String) throws(PayloadError) -> Int64? {
        switch self[key] {
        case nil, .null?: return nil
        case let .int(value)?: return value
        case .some: throw .wrongType(field: key, expected: .int)
        }
    }

    /// A page size (`fetch_pending`, `groups_list`): absent or `null` → `defaultLimit`, else an
    /// integer 1…`max`. Compared as Int64, so a huge value is out of range rather than a
    /// trapping conversion.
    public func pageLimit(_ key: String, default defaultLimit: Int, max: Int) throws(PayloadError) -> Int {
        guard let requested = try optionalInt64(key) else { return defaultLimit }
        guard requested >= 1, requested <= Int64(max) else { throw .outOfRange(field: key) }
        return Int(truncatingIfNeeded: requested)
    }

    public func requireBool(_ key: String) throws(PayloadError) -> Bool {
        guard case let .bool(value) = try requireValue(key) else { throw .wrongType(field: key, expected: .bool) }
        return value
    }

    public func requireObject(_ key: String) throws(PayloadError) -> JSONObject {
        guard case let .object(value) = try requireValue(key) else { throw .wrongType(field: key, expected: .object) }
        return value
    }

    public func requireArray(_ key: String) throws(PayloadError) -> [JSONValue] {
        guard case let .array(value) = try requireValue(key) else { throw .wrongType(field: key, expected: .array) }
        return value
    }

    // MARK: Encoded fields (docs/protocol.md "Encodings")

    /// A base64 field that must decode to exactly `exactByteCount` bytes (nonce 24, public key 32,
    /// signature 64). The length is checked on the text first, so a wrong size costs no decoding.
    public func requireBase64(_ key: String, exactByteCount: Int) throws(PayloadError) -> [UInt8] {
        let text = try requireString(key)
        if text.utf8.count == Base64.encodedLength(forByteCount: exactByteCount),
           let bytes = Base64.decode(text), bytes.count == exactByteCount {
            return bytes
        }
        guard let actual = Base64.decodedByteCount(validating: text) else { throw .invalidBase64(field: key) }
        throw .wrongLength(field: key, expectedBytes: exactByteCount, actualBytes: actual)
    }

    /// Validates a base64 field without decoding it (for ciphertext the server only forwards) and
    /// returns its decoded length, which must be at most `maxByteCount`.
    public func requireBase64Length(_ key: String, maxByteCount: Int) throws(PayloadError) -> Int {
        let text = try requireString(key)
        guard text.utf8.count <= Base64.encodedLength(forByteCount: maxByteCount) else {
            throw .tooLarge(field: key, maxBytes: maxByteCount)
        }
        guard let length = Base64.decodedByteCount(validating: text) else { throw .invalidBase64(field: key) }
        guard length <= maxByteCount else { throw .tooLarge(field: key, maxBytes: maxByteCount) }
        return length
    }

    public func requireUUID(_ key: String) throws(PayloadError) -> CanonicalUUID {
        guard let uuid = CanonicalUUID(try requireString(key)) else { throw .invalidUUID(field: key) }
        return uuid
    }

    /// A UUID as the client spelt it (forwarded and echoed that way) and its canonical form
    /// (compared and used as a key): message and call ids.
    public func requireSpelledUUID(_ key: String) throws(PayloadError) -> (text: String, uuid: CanonicalUUID) {
        let text = try requireString(key)
        guard let uuid = CanonicalUUID(text) else { throw .invalidUUID(field: key) }
        return (text, uuid)
    }

    /// Absent or `null` → `nil`; otherwise it must be a UUID (any case).
    public func optionalUUID(_ key: String) throws(PayloadError) -> CanonicalUUID? {
        guard let text = try optionalString(key) else { return nil }
        guard let uuid = CanonicalUUID(text) else { throw .invalidUUID(field: key) }
        return uuid
    }

    /// An integer timestamp (Unix epoch milliseconds, docs/protocol.md "Encodings") that is not negative. Whether it
    /// is near server time is the handler's check (`INVALID_TIMESTAMP`), not a schema rule.
    public func requireTimestamp(_ key: String) throws(PayloadError) -> Int64 {
        let value = try requireInt64(key)
        guard value >= 0 else { throw .outOfRange(field: key) }
        return value
    }

    public func requireWhisperID(_ key: String) throws(PayloadError) -> WhisperID {
        guard let id = WhisperID.validate(try requireString(key)) else { throw .invalidWhisperID(field: key) }
        return id
    }

    /// Absent or `null` → `nil`; otherwise it must be a canonical, checksum-valid Whisper ID.
    public func optionalWhisperID(_ key: String) throws(PayloadError) -> WhisperID? {
        guard let text = try optionalString(key) else { return nil }
        guard let id = WhisperID.validate(text) else { throw .invalidWhisperID(field: key) }
        return id
    }

    /// Payloads are closed (the schemas say `additionalProperties: false`): any member not in
    /// `allowed` is rejected, so a misspelt optional field cannot be silently ignored.
    public func rejectUnknownKeys(allowed: Set<String>) throws(PayloadError) {
        if let key = firstKey(notIn: allowed) { throw .unknownField(key) }
    }

    public func requireGroupID(_ key: String) throws(PayloadError) -> GroupID {
        guard let id = GroupID(try requireString(key)) else { throw .invalidGroupID(field: key) }
        return id
    }
}

extension JSONFields {
    /// A string member's UTF-8 (a slice of the frame when unescaped), for values the server only
    /// checks and forwards or signs over.
    public func requireStringBytes(_ key: String) throws(PayloadError) -> ArraySlice<UInt8> {
        guard let bytes = stringBytes(forKey: key) else {
            guard contains(key) else { throw .missingField(key) }
            throw .wrongType(field: key, expected: .string)
        }
        return bytes
    }

    /// `requireBase64` reading the frame's bytes, with no `String` in between.
    public func requireBase64(_ key: String, exactByteCount: Int) throws(PayloadError) -> [UInt8] {
        let text = try requireStringBytes(key)
        if text.count == Base64.encodedLength(forByteCount: exactByteCount),
           let bytes = Base64.decode(text), bytes.count == exactByteCount {
            return bytes
        }
        guard let actual = text.withUnsafeBufferPointer({ Base64.decodedByteCount(validating: $0) }) else {
            throw .invalidBase64(field: key)
        }
        throw .wrongLength(field: key, expectedBytes: exactByteCount, actualBytes: actual)
    }

    /// `requireBase64Length` reading the frame's bytes; returns them with the decoded length.
    public func requireBase64Text(_ key: String, maxByteCount: Int) throws(PayloadError) -> (text: ArraySlice<UInt8>, byteCount: Int) {
        let text = try requireStringBytes(key)
        guard text.count <= Base64.encodedLength(forByteCount: maxByteCount) else {
            throw .tooLarge(field: key, maxBytes: maxByteCount)
        }
        guard let length = text.withUnsafeBufferPointer({ Base64.decodedByteCount(validating: $0) }) else {
            throw .invalidBase64(field: key)
        }
        guard length <= maxByteCount else { throw .tooLarge(field: key, maxBytes: maxByteCount) }
        return (text, length)
    }
}

extension JSONObject {
    /// An HTTP request body that must be one flat JSON object (nesting at most `maxDepth`)
    /// of at most `maxBytes`: anything else is `INVALID_PAYLOAD` naming the body.
    public init(httpBody body: [UInt8], maxBytes: Int, maxDepth: Int = 2) throws(PayloadError) {
        do {
            self = try JSONParser.parseObject(body, limits: JSONLimits(maxInputBytes: maxBytes, maxDepth: maxDepth,
                                                                       maxStringBytes: maxBytes))
        } catch {
            throw .invalidValue(field: "body")
        }
    }
}
