/// A client frame's envelope (docs/protocol.md "Frames"): `{"type": …, "requestId"?: …, "payload": {…}}`.
///
/// Envelope rules (docs/protocol.md "Frames"):
/// - not JSON, not an object, `type` missing or not a string, `payload` missing or not an object,
///   `requestId` not a string → `INVALID_PAYLOAD`;
/// - `"requestId": null` is the same as no `requestId` (serializers that write explicit nulls);
/// - `requestId` longer than `Limits.maxRequestIdBytes` is rejected and not echoed;
/// - any other top-level key is rejected: the envelope is frozen, and a typo such as `requestID`
///   would otherwise silently lose the echo, or a misplaced `sessionToken` silently be ignored.
///
/// The payload is read as `JSONFields`: validated like any JSON, but its strings left as spans of
/// the frame's bytes, so signed values are forwarded exactly as the sender wrote them
/// (docs/protocol.md "Canonical signing") and the hot frames make no `String` per field.
public struct InboundFrame: Sendable {
    public let type: String
    public let requestId: String?
    /// The payload's members; their spans index into `source`.
    public let fields: JSONFields

    public static let typeKey = "type"
    public static let requestIdKey = "requestId"
    public static let payloadKey = "payload"

    /// The whole frame as received.
    public var source: [UInt8] { fields.source }

    /// The payload as a `JSONObject` tree, built on each call: for handlers off the hot path,
    /// which read it once.
    public var payload: JSONObject { fields.object }

    public static func parse(_ bytes: [UInt8], limits: Limits) throws(FrameError) -> InboundFrame {
        let jsonLimits = limits.frameJSONLimits
        let scanned: [EnvelopeMember]?
        do {
            scanned = try scanEnvelope(bytes, limits: jsonLimits)
        } catch {
            let recovered = JSONParser.recoverTopLevelString(forKey: requestIdKey, in: bytes, limits: jsonLimits)
            let echo = recovered.flatMap { $0.utf8.count <= limits.maxRequestIdBytes ? $0 : nil }
            throw FrameError(.malformedJSON(error), requestId: echo)
        }
        guard let envelope = scanned else { throw FrameError(.notAnObject, requestId: nil) }

        // requestId first, so every later error can echo it.
        var requestId: String?
        switch envelope.first(where: { utf8Equal($0.key, requestIdKey) })?.value {
        case nil, .null?:
            requestId = nil
        case let .string(id)?:
            guard id.utf8.count <= limits.maxRequestIdBytes else {
                throw FrameError(.requestIdTooLong(maxBytes: limits.maxRequestIdBytes), requestId: nil)
            }
            requestId = id
        case .some:
            throw FrameError(.requestIdNotString, requestId: nil)
        }

        var type: String?
        var payload: [JSONFields.Member]?
        for member in envelope {
            if utf8Equal(member.key, typeKey) {
                guard case let .string(text) = member.value else { throw FrameError(.typeNotString, requestId: requestId) }
                type = text
            } else if utf8Equal(member.key, payloadKey) {
                guard let fields = member.fields else { throw FrameError(.payloadNotObject, requestId: requestId) }
                payload = fields
            } else if !utf8Equal(member.key, requestIdKey) {
                throw FrameError(.unknownTopLevelKey(member.key), requestId: requestId)
            }
        }
        guard let type else { throw FrameError(.missingType, requestId: requestId) }
        guard let payload else { throw FrameError(.missingPayload, requestId: requestId) }
        return InboundFrame(type: type, requestId: requestId, fields: JSONFields(source: bytes, members: payload))
    }

    /// A member of the envelope: `payload` as fields when it is an object, anything else as a tree.
    private struct EnvelopeMember: JSONScannedMember {
        let key: String
        let value: JSONValue
        let fields: [JSONFields.Member]?
    }

    /// The envelope's members, or `nil` for valid JSON that is not an object.
    private static func scanEnvelope(_ bytes: [UInt8], limits: JSONLimits) throws(JSONError) -> [EnvelopeMember]? {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) -> [EnvelopeMember]? in
                var scanner = JSONScanner(bytes: buffer, limits: limits)
                return try scanner.scanDocument { scanner throws(JSONError) -> [EnvelopeMember]? in
                    guard scanner.index < buffer.count, buffer[scanner.index] == ASCII.openBrace else {
                        _ = try scanner.parseValue()
                        return nil
                    }
                    return try scanner.parseMembers { scanner, key, valueStart throws(JSONError) in
                        if utf8Equal(key, payloadKey), valueStart < buffer.count, buffer[valueStart] == ASCII.openBrace {
                            return EnvelopeMember(key: key, value: .null, fields: try scanner.scanFields())
                        }
                        return EnvelopeMember(key: key, value: try scanner.parseValue(), fields: nil)
                    }
                }
            }
        }.get()
    }

    /// The exact bytes the sender wrote for a payload member's value (for a string, including its
    /// quotes and escapes), ready for `JSONWriter.raw`. `nil` if the member is absent.
    public func rawPayloadValue(forKey key: String) -> ArraySlice<UInt8>? {
        fields.raw(forKey: key)
    }
}
