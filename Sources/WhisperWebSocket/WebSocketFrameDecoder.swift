/// Incremental, server-side frame decoder (RFC 6455 §5.2).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
/// |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
/// |N|V|V|V|       |S|             |   (if payload len==126/127)   |
/// | |1|2|3|       |K|             |                               |
/// +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
/// |     Extended payload length continued, if payload len == 127  |
/// + - - - - - - - - - - - - - - - +-------------------------------+
/// |                               |Masking-key, if MASK set to 1  |
/// +-------------------------------+-------------------------------+
/// | Masking-key (continued)       |          Payload Data         |
/// +-------------------------------- - - - - - - - - - - - - - - - +
/// ```
///
/// State lives here: header octets are collected into a 14-octet scratch and the payload is
/// copied once, straight from the caller's buffer into the frame's array and unmasked there, so a
/// split read never re-scans. Every rule that can be judged from the first two octets is judged
/// there; the length is checked against the budget as soon as it is complete (1009 before any
/// payload is buffered). After an error the decoder stays failed.
public struct WebSocketFrameDecoder: Sendable {
    private enum State: Sendable {
        case header
        case payload(WebSocketFrameHeader, WebSocketMaskingKey)
        case failed(WebSocketError)
    }

    /// Whether RSV1 may be set on the first frame of a data message (permessage-deflate, RFC 7692 §6).
    public let allowsCompression: Bool

    private var state: State = .header
    private var scratch: [UInt8] = []
    private var needed = 2
    private var payload: [UInt8] = []

    public init(allowsCompression: Bool = false) {
        self.allowsCompression = allowsCompression
        scratch.reserveCapacity(14)
    }

    /// The frame whose payload is partly received, with the octets so far (already unmasked).
    /// Lets the assembler validate text early so invalid UTF-8 fails fast (RFC 6455 §8.1).
    public var partialFrame: (header: WebSocketFrameHeader, payload: [UInt8])? {
        if case .payload(let header, _) = state, !payload.isEmpty { return (header, payload) }
        return nil
    }

    /// The header of the frame being received, if one has been fully read.
    public var partialHeader: WebSocketFrameHeader? {
        if case .payload(let header, _) = state { return header }
        return nil
    }

    /// Consumes octets from `input[index...]` until one frame is complete (returned, with `index`
    /// just past it) or the input is exhausted (nil, with `index == input.count`).
    public mutating func decode(
        _ input: UnsafeBufferPointer<UInt8>, from index: inout Int, budget: WebSocketPayloadBudget
    ) throws(WebSocketError) -> WebSocketFrame? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .header:
                guard try readHeader(input, from: &index, budget: budget) else { return nil }
            case .payload(let header, let key):
                let have = payload.count
                let take = min(header.payloadLength - have, input.count - index)
                if take > 0 {
                    if have == 0 {
                        // Reserve the whole payload when it is all here, else a bounded amount:
                        // a peer announcing a large frame must not make us allocate it up front.
                        payload.reserveCapacity(take == header.payloadLength ? take : min(header.payloadLength, max(take, 16_384)))
                    }
                    payload.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + take)]))
                    WebSocketMasking.apply(key, to: &payload, range: have..<(have + take), keyOffset: have)
                    index += take
                }
                guard payload.count == header.payloadLength else { return nil }
                let frame = WebSocketFrame(fin: header.fin, rsv1: header.rsv1, opcode: header.opcode, payload: payload)
                payload = []
                state = .header
                return frame
            }
        }
    }

    /// Decodes every complete frame in `bytes` with a fixed budget (for standalone use and tests).
    public mutating func decode(_ bytes: some Collection<UInt8>, budget: WebSocketPayloadBudget) throws(WebSocketError) -> [WebSocketFrame] {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (input) throws(WebSocketError) -> [WebSocketFrame] in
            var frames: [WebSocketFrame] = []
            var index = 0
            while let frame = try decode(input, from: &index, budget: budget) { frames.append(frame) }
            return frames
        }
    }

    // MARK: - Header

    /// Collects header octets; returns true once the header is complete and validated.
    private mutating func readHeader(_ input: UnsafeBufferPointer<UInt8>, from index: inout Int, budget: WebSocketPayloadBudget) throws(WebSocketError) -> Bool {
        while scratch.count < needed {
            guard index < input.count else { return false }
            scratch.append(input[index])
            index += 1
            if scratch.count == 2 {
                do throws(WebSocketError) {
                    needed = try Self.headerLength(first: scratch[0], second: scratch[1], allowsCompression: allowsCompression)
                } catch {
                    state = .failed(error)
                    throw error
                }
            }
        }
        do throws(WebSocketError) {
            let (header, key) = try Self.parse(scratch, budget: budget)
            scratch.removeAll(keepingCapacity: true)
            needed = 2
            state = .payload(header, key)
            return true
        } catch {
            state = .failed(error)
            throw error
        }
    }

    /// Judges the first two octets (RFC 6455 §5.2, §5.5) and returns the full header length.
    static func headerLength(first: UInt8, second: UInt8, allowsCompression: Bool) throws(WebSocketError) -> Int {
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .reservedOpcode(first & 0x0F)
        }
        // RSV2/RSV3 are never negotiated; RSV1 only marks the first frame of a compressed data
        // message (RFC 7692 §6.1: not on continuation or control frames).
        guard first & 0x30 == 0, !rsv1 || (allowsCompression && opcode.startsMessage) else {
            throw .reservedBitsSet
        }
        // RFC 6455 §5.5: control frames are never fragmented. Their ≤ 125 length is checked
        // once the length is complete, since a non-minimal 16/64-bit form is still a length.
        guard fin || !opcode.isControl else { throw .fragmentedControlFrame }
        let length7 = second & 0x7F
        // RFC 6455 §5.1: the server MUST fail the connection on an unmasked client frame.
        guard second & 0x80 != 0 else { throw .unmaskedFrame }
        switch length7 {
        case 126: return 2 + 2 + 4
        case 127: return 2 + 8 + 4
        default: return 2 + 4
        }
    }

    /// Parses a complete header (length already implied by `scratch.count`).
    private static func parse(_ scratch: [UInt8], budget: WebSocketPayloadBudget) throws(WebSocketError) -> (WebSocketFrameHeader, WebSocketMaskingKey) {
        let first = scratch[0]
        let length7 = scratch[1] & 0x7F
        let opcode = WebSocketOpcode(rawValue: first & 0x0F) ?? .continuation  // validated in headerLength
        var length = UInt64(length7)
        var keyStart = 2
        if length7 == 126 {
            length = UInt64(scratch[2]) << 8 | UInt64(scratch[3])
            keyStart = 4
        } else if length7 == 127 {
            length = 0
            for i in 2..<10 { length = length << 8 | UInt64(scratch[i]) }
            keyStart = 10
            // RFC 6455 §5.2: "the most significant bit MUST be 0". Non-minimal encodings are legal.
            guard length & (1 << 63) == 0 else { throw .invalidPayloadLength }
        }
        guard length <= 125 || !opcode.isControl else { throw .controlFrameTooLong }
        let rsv1 = first & 0x40 != 0
        let limit = UInt64(max(0, budget.limit(for: opcode, compressed: rsv1)))
        guard length <= limit else { throw .messageTooBig }
        let header = WebSocketFrameHeader(fin: first & 0x80 != 0, rsv1: rsv1, opcode: opcode, payloadLength: Int(truncatingIfNeeded: length))
        let key = WebSocketMaskingKey(scratch[keyStart], scratch[keyStart + 1], scratch[keyStart + 2], scratch[keyStart + 3])
        return (header, key)
    }
}
