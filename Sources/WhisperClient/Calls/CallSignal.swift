import WhisperProtocol

/// One call signal as the app gets it (docs/protocol.md "Calls"): which frame, the call, the
/// peer, and the decrypted blob — the SDP of an offer or answer, one ICE candidate, or whatever
/// the peer put in its hang-up (often nothing). Media itself is the app's (WebRTC).
public struct CallSignal: Equatable, Sendable {
    public let kind: CallSignalKind
    /// As the peer spelt it (compare lower case).
    public let callId: String
    public let from: WhisperID
    /// On an offer (`call_initiate`) only.
    public let isVideo: Bool?
    public let timestamp: Int64
    public let plaintext: [UInt8]

    public var text: String { String(decoding: plaintext, as: UTF8.self) }
}
