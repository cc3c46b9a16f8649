import WhisperProtocol

/// libFuzzer target `protocol`: a client text message through the JSON scanner, the envelope
/// (`InboundFrame.parse`) and the payload parser of every client frame type with default
/// `Limits`, as the gateway runs them (docs/protocol.md "Frames"); the same bytes also go
/// through every HTTP body parser.
///
/// Invariants: no crash or hang; a parsed value written back by `JSONWriter` parses again to an
/// equal value and the writer is idempotent (decode(encode(x)) == x).
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

    /// Every client frame type's parser, whatever the `type` says, so each sees every input.
    static func payloads(_ frame: InboundFrame, limits: Limits) {
        let payload = frame.payload
        _ = try? PrivilegedPayload.sessionToken(in: payload)
        _ = try? PrivilegedPayload.requireOnlyCommonKeys(payload)
        _ = try? RegisterBeginPayload(parsing: payload)
        _ = try? RegisterProofPayload(parsing: payload, limits: limits)
        _ = try? UpdateTokensPayload(parsing: payload, limits: limits)
        _ = try? SendMessagePayload(parsing: frame, limits: limits)
        _ = try? FetchPendingPayload(parsing: payload, limits: limits)
        _ = try? DeliveryReceiptPayload(parsing: payload)
        for kind in CallSignalKind.allCases { _ = try? CallSignalPayload(parsing: frame, kind: kind, limits: limits) }
        _ = try? TypingPayload(parsing: payload)
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
