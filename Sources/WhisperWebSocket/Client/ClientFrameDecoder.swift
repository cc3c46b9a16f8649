/// Decodes server frames as a client sees them (RFC 6455 §5.2): never masked, data messages
/// possibly fragmented and, with permessage-deflate, compressed (RFC 7692 §6).
///
/// ```
/// |F|R|R|R| opcode|M| len7 | [len16 | len64] | payload … |      (M must be 0 from a server)
/// ```
///
/// Bytes that do not yet make a whole frame are kept until the next read; the length is
/// checked against `maxMessageBytes` as soon as the header is complete, before buffering the
/// payload. A client only talks to the server it benchmarks, so a simple keep-the-rest
/// buffer is enough here; the server's decoder is the fully incremental one.
public struct ClientFrameDecoder {
    public let maxMessageBytes: Int
    private let decompressor: DeflateDecompressor?
    /// Octets of an incomplete frame, carried over to the next read.
    private var carry: [UInt8] = []
    /// Fragments of an open data message (RFC 6455 §5.4).
    private var message: [UInt8] = []
    private var messageOpen = false
    private var messageCompressed = false

    public init(maxMessageBytes: Int, deflate: DeflateParameters?) {
        self.maxMessageBytes = maxMessageBytes
        decompressor = deflate.map { DeflateDecompressor(parameters: $0) }
    }

    /// Decodes every complete frame in the carried bytes plus `input`, calling `emit` per event.
    public mutating func feed(_ input: UnsafeRawBufferPointer, emit: (ServerFrameEvent) -> Void) throws(ClientFrameError) {
        if carry.isEmpty {
            let consumed = try input.withMemoryRebound(to: UInt8.self) { buffer in
                Result { () throws(ClientFrameError) in try decodeFrames(buffer, emit: emit) }
            }.get()
            if consumed < input.count { carry = Array(input[consumed...]) }
            return
        }
        var pending = carry
        carry = []
        pending.append(contentsOf: input)
        let consumed = try pending.withUnsafeBufferPointer { buffer in
            Result { () throws(ClientFrameError) in try decodeFrames(buffer, emit: emit) }
        }.get()
        if consumed < pending.count { carry = Array(pending[consumed...]) }
    }

    /// Returns how many octets made whole frames.
    private mutating func decodeFrames(_ bytes: UnsafeBufferPointer<UInt8>, emit: (ServerFrameEvent) -> Void) throws(ClientFrameError) -> Int {
        var index = 0
        while bytes.count - index >= 2 {
            let first = bytes[index], second = bytes[index + 1]
            guard second & 0x80 == 0 else { throw .maskedFrame }
            let length7 = Int(second & 0x7F)
            let headerLength = length7 == 126 ? 4 : (length7 == 127 ? 10 : 2)
            guard bytes.count - index >= headerLength else { break }
            var length = UInt64(length7)
            if length7 == 126 {
                length = UInt64(bytes[index + 2]) << 8 | UInt64(bytes[index + 3])
            } else if length7 == 127 {
                length = 0
                for i in 2..<10 { length = length << 8 | UInt64(bytes[index + i]) }
            }
            // Compared as UInt64 so a huge announced length cannot trap a conversion.
            guard length <= UInt64(maxMessageBytes) else { throw .messageTooBig }
            let payloadLength = Int(length)
            guard bytes.count - index - headerLength >= payloadLength else { break }
            let start = index + headerLength
            let payload = Array(UnsafeBufferPointer(rebasing: bytes[start..<(start + payloadLength)]))
            index = start + payloadLength
            try handle(first: first, payload: payload, emit: emit)
        }
        return index
    }

    private mutating func handle(first: UInt8, payload: [UInt8], emit: (ServerFrameEvent) -> Void) throws(ClientFrameError) {
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        guard first & 0x30 == 0 else { throw .reservedBitsSet }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else { throw .reservedOpcode(first & 0x0F) }
        if opcode.isControl {
            guard fin, !rsv1, payload.count <= 125 else { throw .badControlFrame }
            switch opcode {
            case .ping: emit(.ping(payload))
            case .pong: emit(.pong)
            default:
                let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
                emit(.close(code: code, reason: Array(payload.dropFirst(2))))
            }
            return
        }
        switch opcode {
        case .binary:
            throw .binaryMessage
        case .text:
            guard !messageOpen else { throw .badContinuation }
            guard !rsv1 || decompressor != nil else { throw .badCompression }
            if fin { return emit(.text(try finish(payload, compressed: rsv1))) }
            messageOpen = true
            messageCompressed = rsv1
            message = payload
        default:
            // Continuation: RSV1 belongs only on a message's first frame (RFC 7692 §6.1).
            guard messageOpen, !rsv1 else { throw .badContinuation }
            guard message.count + payload.count <= maxMessageBytes else { throw .messageTooBig }
            message.append(contentsOf: payload)
            guard fin else { return }
            let whole = message
            message = []
            messageOpen = false
            emit(.text(try finish(whole, compressed: messageCompressed)))
        }
    }

    private func finish(_ payload: [UInt8], compressed: Bool) throws(ClientFrameError) -> [UInt8] {
        guard compressed else { return payload }
        guard let decompressor else { throw .badCompression }
        do {
            return try decompressor.decompressMessage(payload, limit: maxMessageBytes)
        } catch .messageTooBig {
            throw .messageTooBig
        } catch {
            throw .badCompression
        }
    }
}
