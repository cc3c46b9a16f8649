/// Why an inbound frame's envelope was rejected. Every reason is `INVALID_PAYLOAD` (docs/protocol.md "Frames");
/// `requestId` carries the frame's `requestId` when it could be read, so the reply can echo it.
public struct FrameError: Error, Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        case malformedJSON(JSONError)
        case notAnObject
        case missingType
        case typeNotString
        case missingPayload
        case payloadNotObject
        case requestIdNotString
        case requestIdTooLong(maxBytes: Int)
        case unknownTopLevelKey(String)
    }

    public let reason: Reason
    public let requestId: String?

    public init(_ reason: Reason, requestId: String?) {
        self.reason = reason
        self.requestId = requestId
    }

    public var code: ErrorCode { .invalidPayload }

    public var message: String {
        switch reason {
        case let .malformedJSON(error): return "malformed JSON: \(error)"
        case .notAnObject: return "frame must be a JSON object"
        case .missingType: return "type is required"
        case .typeNotString: return "type must be a string"
        case .missingPayload: return "payload is required"
        case .payloadNotObject: return "payload must be an object"
        case .requestIdNotString: return "requestId must be a string"
        case let .requestIdTooLong(maxBytes): return "requestId exceeds \(maxBytes) bytes"
        case let .unknownTopLevelKey(key):
            return "unknown top-level key \"\(truncatedForMessage(key))\" (allowed: type, requestId, payload)"
        }
    }

    /// The `error` frame to send back.
    public func errorFrame() -> [UInt8] {
        OutboundFrame.errorFrame(code: code, message: message, requestId: requestId)
    }
}
