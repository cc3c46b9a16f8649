internal import CZlib

/// Inflates incoming compressed messages for permessage-deflate (RFC 7692 §7.2.2), with a hard
/// cap on the decompressed size against decompression bombs.
///
/// Fragments are inflated as they arrive (one DEFLATE stream per message, RFC 7692 §6.1), so an
/// oversized message fails the moment its output passes the cap, not after it has been built.
/// A class for the same reasons as `DeflateCompressor`. Always inflates with a 32 KiB window,
/// which decodes data compressed with any smaller window.
public final class DeflateDecompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private var initialized = false
    private let noContextTakeover: Bool
    /// Inflate output lands here first; allocated with the zlib state, on first use.
    private var scratch = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    private static let scratchSize = 16_384
    /// Compressed octets fed for the current message.
    private var messageInput = 0
    /// The sender ended the DEFLATE stream (BFINAL) and nothing followed it yet (RFC 7692 §7.2.3.4).
    private var streamEnded = false

    /// The empty stored block the sender removed (RFC 7692 §7.2.2).
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    public init(parameters: DeflateParameters) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        noContextTakeover = parameters.clientNoContextTakeover
    }

    deinit {
        if initialized { inflateEnd(stream) }
        scratch.deallocate()
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates one fragment's payload, appending to `output`. Throws `.messageTooBig` as soon as
    /// `output.count` would exceed `limit`, `.invalidCompressedData` for corrupt input.
    public func decompress(_ payload: [UInt8], into output: inout [UInt8], limit: Int) throws(WebSocketError) {
        guard !payload.isEmpty else { return }
        messageInput += payload.count
        streamEnded = false
        try inflate(payload, into: &output, limit: limit)
    }

    /// Ends the message: appends `00 00 FF FF` and inflates it (RFC 7692 §7.2.2), then resets the
    /// stream if the client does not keep context (§7.1.1.2).
    public func finishMessage(into output: inout [UInt8], limit: Int) throws(WebSocketError) {
        defer {
            messageInput = 0
            streamEnded = false
        }
        // An empty payload is an empty message; feeding the tail alone would leave zlib inside
        // a stored-block header. After BFINAL the tail belongs to no stream.
        if messageInput > 0 && !streamEnded {
            try inflate(Self.tail, into: &output, limit: limit)
        }
        if noContextTakeover && initialized {
            guard inflateReset(stream) == Z_OK else { throw .compressionFailure }
        }
    }

    /// Convenience for a whole single-frame message.
    public func decompressMessage(_ payload: [UInt8], limit: Int) throws(WebSocketError) -> [UInt8] {
        var output: [UInt8] = []
        try decompress(payload, into: &output, limit: limit)
        try finishMessage(into: &output, limit: limit)
        return output
    }

    private func inflate(_ input: [UInt8], into output: inout [UInt8], limit: Int) throws(WebSocketError) {
        if !initialized {
            guard whisper_inflateInit2(stream, -15) == Z_OK else { throw .compressionFailure }
            initialized = true
            scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Self.scratchSize)
        }
        let result = input.withUnsafeBufferPointer { buffer -> WebSocketError? in
            // avail_in is 32 bits; the wire cap keeps real input far below that.
            guard buffer.count <= Int(UInt32.max) else { return .messageTooBig }
            stream.pointee.next_in = buffer.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.pointee.avail_in = UInt32(truncatingIfNeeded: buffer.count)
            defer {
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
            return inflateAvailableInput(into: &output, limit: limit)
        }
        if let result { throw result }
    }

    /// Runs `inflate` until the input is used up and zlib has no more output pending. Inflates
    /// into a reused scratch buffer and appends, so output is never zero-filled first.
    private func inflateAvailableInput(into output: inout [UInt8], limit: Int) -> WebSocketError? {
        guard let base = scratch.baseAddress else { return .compressionFailure }
        while true {
            // Room for at most one octet past the cap, so crossing it is seen without inflating more.
            let remaining = limit - output.count
            guard remaining >= 0 else { return .messageTooBig }
            let chunk = remaining < scratch.count ? remaining + 1 : scratch.count
            stream.pointee.next_out = base
            stream.pointee.avail_out = UInt32(truncatingIfNeeded: chunk)
            let code = CZlib.inflate(stream, Z_SYNC_FLUSH)
            let unused = Int(stream.pointee.avail_out)
            output.append(contentsOf: UnsafeBufferPointer(start: base, count: chunk - unused))
            if output.count > limit { return .messageTooBig }
            switch code {
            case Z_OK, Z_BUF_ERROR:
                if stream.pointee.avail_in == 0 && unused > 0 { return nil }
                if code == Z_BUF_ERROR && unused > 0 { return .invalidCompressedData }  // no progress possible
            case Z_STREAM_END:
                // A final block ended the stream (RFC 7692 §7.2.3.4). Start a fresh one for
                // anything that follows; the LZ77 window is gone either way.
                guard inflateReset(stream) == Z_OK else { return .compressionFailure }
                streamEnded = stream.pointee.avail_in == 0
                if streamEnded { return nil }
            case Z_DATA_ERROR, Z_NEED_DICT:
                return .invalidCompressedData
            default:
                return .compressionFailure
            }
        }
    }
}
