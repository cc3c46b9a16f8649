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
/// `source` keeps the frame's bytes so signed values can be forwarded exactly as the sender wrote
/// them (docs/protocol.md "Canonical signing"): see `rawPayloadValue(forKey:)`.
public struct InboundFrame: Sendable {
    public let type: String
    public let requestId: String?
    public let payload: JSONObject
    /// The whole frame as received. Payload member spans index into it.
    public let source: [UInt8]

    public static let typeKey = "type"
    public static let requestIdKey = "requestId"
    public static let payloadKey = "payload"

    public static func parse(_ bytes: [UInt8], limits: Limits) throws(FrameError) -> InboundFrame {
        let jsonLimits = limits.frameJSONLimits
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: jsonLimits)
        } catch {
            let recovered = JSONParser.recoverTopLevelString(forKey: requestIdKey, in: bytes, limits: jsonLimits)
            let echo = recovered.flatMap { $0.utf8.count <= limits.maxRequestIdBytes ? $0 : nil }
            throw FrameError(.malformedJSON(error), requestId: echo)
        }
        guard case let .object(envelope) = value else { throw FrameError(.notAnObject, requestId: nil) }

        // requestId first, so every later error can echo it.
        var requestId: String?
        switch envelope[requestIdKey] {
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
        var payload: JSONObject?
        for member in envelope.members {
            if utf8Equal(member.key, typeKey) {
                guard case let .string(text) = member.value else { throw FrameError(.typeNotString, requestId: requestId) }
                type = text
            } else if utf8Equal(member.key, payloadKey) {
                guard case let .object(object) = member.value else {
                    throw FrameError(.payloadNotObject, requestId: requestId)
                }
                payload = object
            } else if !utf8Equal(member.key, requestIdKey) {
                throw FrameError(.unknownTopLevelKey(member.key), requestId: requestId)
            }
        }
        guard let type else { throw FrameError(.missingType, requestId: requestId) }
        guard let payload else { throw FrameError(.missingPayload, requestId: requestId) }
        return InboundFrame(type: type, requestId: requestId, payload: payload, source: bytes)
    }

    /// The exact bytes the sender wrote for a payload member's value (for a string, including its
    /// quotes and escapes), ready for `JSONWriter.raw`. `nil` if the member is absent.
    public func rawPayloadValue(forKey key: String) -> ArraySlice<UInt8>? {
        guard let span = payload.span(forKey: key),
              span.lowerBound >= 0, span.upperBound <= source.count
        else { return nil }
        return source[span]
    }
}
