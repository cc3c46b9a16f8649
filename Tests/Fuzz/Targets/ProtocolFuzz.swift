import WhisperProtocol

/// libFuzzer target `protocol`: a client text message through the JSON scanner, the envelope
/// (`InboundFrame.parse`) and the payload parser of every client frame type with default
/// `Limits`, as the gateway runs them (docs/protocol.md "Frames"); the same bytes also go
/// through every HTTP body parser.
///
/// Invariants: no crash or hang; a parsed value written back by `JSONWriter` parses again to an
/// equal value and the writer is idempotent (decode(encode(x)) == x); the span scan
/// (`JSONParser.parseFields`) accepts and rejects exactly what the tree parser does, with equal
/// values and spans.
@_cdecl("LLVMFuzzerTestOneInput")
public func protocolFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = Limits.default
    ProtocolFuzzSupport.jsonRoundTrip(bytes, limits: limits)
    ProtocolFuzzSupport.httpBodies(bytes, limits: limits)
    guard let frame = try? InboundFrame.parse(bytes, limits: limits) else { return 0 }
    ProtocolFuzzSupport.payloads(frame, limits: limits)
    return 0
}

enum ProtocolFuzzSupport {
    static func jsonRoundTrip(_ bytes: [UInt8], limits: Limits) {
        let jsonLimits = limits.frameJSONLimits
        _ = JSONParser.recoverTopLevelString(forKey: InboundFrame.requestIdKey, in: bytes, limits: jsonLimits)
        fieldsAgreeWithTree(bytes, limits: jsonLimits)
        guard let value = try? JSONParser.parse(bytes, limits: jsonLimits) else { return }
        var writer = JSONWriter()
        guard (try? writer.value(value)) != nil else { return }
        let encoded = writer.bytes
        guard let again = try? JSONParser.parse(encoded, limits: jsonLimits) else {
            preconditionFailure("the writer's output of a parsed value does not parse")
        }
        precondition(again == value, "decode(encode(x)) != x")
        var rewriter = JSONWriter()
        guard (try? rewriter.value(again)) != nil else { preconditionFailure("a re-parsed value cannot be written") }
        precondition(rewriter.bytes == encoded, "the writer is not idempotent")
    }

    static func fieldsAgreeWithTree(_ bytes: [UInt8], limits: JSONLimits) {
        let tree: Result<JSONObject, JSONError> = Result { () throws(JSONError) in try JSONParser.parseObject(bytes, limits: limits) }
        let fields: Result<JSONFields, JSONError> = Result { () throws(JSONError) in try JSONParser.parseFields(bytes, limits: limits) }
        switch (tree, fields) {
        case let (.success(object), .success(fields)):
            let built = fields.object
            precondition(built == object, "parseFields and parseObject disagree on a value")
            precondition(built.members.map(\.valueSpan) == object.members.map(\.valueSpan), "spans disagree")
            for member in object.members {
                if case .string(let text)? = object[member.key] {
                    precondition(fields.stringBytes(forKey: member.key).map(Array.init) == Array(text.utf8), "string bytes disagree")
                }
            }
        case let (.failure(a), .failure(b)):
            precondition(a == b, "parseFields and parseObject reject differently")
        default:
            preconditionFailure("parseFields and parseObject disagree on acceptance")
        }
    }

    /// Every client frame type's parser, whatever the `type` says, so each sees every input.
    static func payloads(_ frame: InboundFrame, limits: Limits) {
        let payload = frame.payload
        _ = try? PrivilegedPayload.sessionToken(in: frame.fields)
        _ = try? PrivilegedPayload.requireOnlyCommonKeys(frame.fields)
        _ = try? RegisterBeginPayload(parsing: payload)
        _ = try? RegisterProofPayload(parsing: payload, limits: limits)
        _ = try? UpdateTokensPayload(parsing: payload, limits: limits)
        _ = try? SendMessagePayload(parsing: frame, limits: limits)
        _ = try? FetchPendingPayload(parsing: payload, limits: limits)
        _ = try? DeliveryReceiptPayload(parsing: frame.fields)
        for kind in CallSignalKind.allCases { _ = try? CallSignalPayload(parsing: frame, kind: kind, limits: limits) }
        _ = try? TypingPayload(parsing: frame.fields)
        _ = try? GroupCreatePayload(parsing: payload, limits: limits)
        _ = try? GroupUpdatePayload(parsing: payload, limits: limits)
        _ = try? MessageReactions.validateOptional(in: payload, limits: limits)
        _ = try? AttachmentPointer(parsing: payload, limits: limits)
        for member in payload.members { _ = frame.rawPayloadValue(forKey: member.key) }
    }

    /// The JSON bodies of the HTTP routes (docs/protocol.md "HTTP API").
    static func httpBodies(_ bytes: [UInt8], limits: Limits) {
        _ = try? ContactsBackupPayload(body: bytes, limits: limits)
        _ = try? ReportPayload(body: bytes, limits: limits)
        _ = try? AdminReviewPayload(body: bytes, limits: limits)
        _ = try? AdminBanPayload(body: bytes, limits: limits)
        _ = try? AdminUnbanPayload(body: bytes)
        _ = try? AttachmentPresignPayload(body: bytes, limits: limits)
    }
}
