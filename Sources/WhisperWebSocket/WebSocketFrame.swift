/// One decoded frame: the header bits that survive validation plus the unmasked payload.
///
/// RSV2/RSV3 and the mask are not kept: the decoder rejects the former and removes the latter.
public struct WebSocketFrame: Equatable, Sendable {
    public var fin: Bool
    /// Set on the first frame of a compressed message (RFC 7692 §6).
    public var rsv1: Bool
    public var opcode: WebSocketOpcode
    public var payload: [UInt8]

    public init(fin: Bool = true, rsv1: Bool = false, opcode: WebSocketOpcode, payload: [UInt8]) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payload = payload
    }
}

/// A validated frame header whose payload may still be arriving.
public struct WebSocketFrameHeader: Equatable, Sendable {
    public var fin: Bool
    public var rsv1: Bool
    public var opcode: WebSocketOpcode
    /// Declared payload length; already checked against the budget, so it fits an `Int`.
    public var payloadLength: Int

    public init(fin: Bool, rsv1: Bool, opcode: WebSocketOpcode, payloadLength: Int) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payloadLength = payloadLength
    }
}
