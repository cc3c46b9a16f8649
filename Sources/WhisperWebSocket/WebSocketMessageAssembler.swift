/// Turns frames into messages (RFC 6455 §5.4, §5.6): reassembles fragments, inflates compressed
/// messages (RFC 7692 §6.1), enforces the message cap and validates text as UTF-8.
///
/// Control frames may arrive between the fragments of a message and are returned at once.
/// Text is validated per fragment (and, via `inspectPartialFrame`, per read), so invalid UTF-8
/// fails fast (RFC 6455 §8.1); the validator keeps its state across fragment boundaries.
public struct WebSocketMessageAssembler {
    /// The largest message accepted, after decompression (docs/protocol.md "Transport": `MAX_WS_FRAME_BYTES`).
    public let maxMessageBytes: Int
    /// The largest compressed message accepted on the wire.
    public let maxCompressedMessageBytes: Int

    private struct OpenMessage {
        var isText: Bool
        var compressed: Bool
        var buffer: [UInt8]
        /// Payload octets received on the wire for this message.
        var wireBytes: Int
    }

    private let decompressor: DeflateDecompressor?
    private var open: OpenMessage?
    private var validator = UTF8Validator()
    /// Octets at the start of the frame in flight that `inspectPartialFrame` already validated.
    private var validatedPrefix = 0

    /// - Parameters:
    ///   - maxMessageBytes: cap on a message's (decompressed) size; above it → 1009.
    ///   - maxCompressedMessageBytes: cap on a compressed message's wire size; defaults to the
    ///     message cap plus deflate's worst-case expansion and some slack for sync flushes.
    ///   - deflate: the negotiated permessage-deflate parameters, if any.
    public init(maxMessageBytes: Int = 512_000, maxCompressedMessageBytes: Int? = nil, deflate: DeflateParameters? = nil) {
        self.maxMessageBytes = max(0, maxMessageBytes)
        self.maxCompressedMessageBytes = max(0, maxCompressedMessageBytes ?? Self.defaultCompressedCap(for: self.maxMessageBytes))
        decompressor = deflate.map { DeflateDecompressor(parameters: $0) }
    }

    /// Stored blocks cost 5 octets per 65,535, and a client may flush per fragment; /16 covers both.
    static func defaultCompressedCap(for cap: Int) -> Int {
        let (sum, overflow) = cap.addingReportingOverflow(cap / 16 + 1_024)
        return overflow ? Int.max : sum
    }

    /// What the next frame may carry, for the decoder to check before buffering it.
    public var budget: WebSocketPayloadBudget {
        let continuation: Int
        if let open {
            continuation = (open.compressed ? maxCompressedMessageBytes : maxMessageBytes) - open.wireBytes
        } else {
            continuation = maxMessageBytes  // rejected as unexpected when it arrives
        }
        return WebSocketPayloadBudget(newMessage: maxMessageBytes, newCompressedMessage: maxCompressedMessageBytes, continuation: continuation)
    }

    /// Whether the message in progress (if any) is binary; lets the caller refuse it early.
    public var isAssemblingBinary: Bool { open.map { !$0.isText } ?? false }

    /// Adds one frame; returns an event when it completes a message or is a control frame.
    public mutating func append(_ frame: WebSocketFrame) throws(WebSocketError) -> WebSocketEvent? {
        defer { validatedPrefix = 0 }
        switch frame.opcode {
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            return try Self.parseClose(frame.payload)
        case .text, .binary:
            // RFC 6455 §5.4: no new message may start inside a fragmented one.
            guard open == nil else { throw .expectedContinuation }
            guard !frame.rsv1 || decompressor != nil else { throw .reservedBitsSet }
            let message = OpenMessage(isText: frame.opcode == .text, compressed: frame.rsv1, buffer: [], wireBytes: 0)
            return try absorb(frame, into: message)
        case .continuation:
            guard let message = open else { throw .unexpectedContinuation }
            open = nil
            return try absorb(frame, into: message)
        }
    }

    /// Validates the already-received part of a text frame still in flight, so invalid UTF-8
    /// split across reads is caught before the rest of the frame arrives. Octets are validated
    /// once: `append` continues where this stopped.
    public mutating func inspectPartialFrame(_ header: WebSocketFrameHeader, payload: [UInt8]) throws(WebSocketError) {
        let isPlainText: Bool
        switch header.opcode {
        case .text: isPlainText = open == nil && !header.rsv1
        case .continuation: isPlainText = open.map { $0.isText && !$0.compressed } ?? false
        default: isPlainText = false
        }
        guard isPlainText, payload.count > validatedPrefix else { return }
        try validateText(payload[validatedPrefix...])
        validatedPrefix = payload.count
    }

    // MARK: - Data frames

    private mutating func absorb(_ frame: WebSocketFrame, into message: OpenMessage) throws(WebSocketError) -> WebSocketEvent? {
        var message = message
        message.wireBytes += frame.payload.count
        if message.compressed {
            try inflate(frame, into: &message)
        } else {
            guard message.wireBytes <= maxMessageBytes else { throw .messageTooBig }
            if message.isText { try validateText(frame.payload[validatedPrefix...]) }
            if message.buffer.isEmpty {
                message.buffer = frame.payload  // the common single-frame case: no copy
            } else {
                message.buffer.append(contentsOf: frame.payload)
            }
        }
        guard frame.fin else {
            open = message
            return nil
        }
        if message.isText {
            // RFC 6455 §8.1: a message may not end inside a code point.
            guard validator.isComplete else { throw .invalidUTF8 }
            validator.reset()
            return .text(message.buffer)
        }
        return .binary(message.buffer)
    }

    /// Inflates one fragment of a compressed message (RFC 7692 §7.2.2), validating text output.
    private mutating func inflate(_ frame: WebSocketFrame, into message: inout OpenMessage) throws(WebSocketError) {
        guard let decompressor else { throw .reservedBitsSet }
        guard message.wireBytes <= maxCompressedMessageBytes else { throw .messageTooBig }
        let before = message.buffer.count
        try decompressor.decompress(frame.payload, into: &message.buffer, limit: maxMessageBytes)
        if frame.fin {
            try decompressor.finishMessage(into: &message.buffer, limit: maxMessageBytes)
        }
        if message.isText { try validateText(message.buffer[before...]) }
    }

    private mutating func validateText(_ bytes: ArraySlice<UInt8>) throws(WebSocketError) {
        guard validator.validate(bytes) else { throw .invalidUTF8 }
    }
}
