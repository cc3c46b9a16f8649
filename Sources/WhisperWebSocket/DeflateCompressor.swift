internal import CZlib

/// Compresses outgoing messages for permessage-deflate (RFC 7692 §7.2.1).
///
/// A class because zlib's `z_stream` must not move (zlib checks `state->strm == strm`) and must be
/// freed exactly once. zlib state is created on first use, so a connection that never sends a
/// message costs no deflate memory. Not thread-safe: one per connection, used on its loop.
public final class DeflateCompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private var initialized = false
    private let windowBits: Int32
    private let level: Int32
    private let memoryLevel: Int32
    private let noContextTakeover: Bool

    public init(parameters: DeflateParameters) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        windowBits = parameters.compressorWindowBits
        level = parameters.compressionLevel
        memoryLevel = parameters.memoryLevel
        noContextTakeover = parameters.serverNoContextTakeover
    }

    deinit {
        if initialized { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses one whole message; nil if zlib fails (the caller then sends it uncompressed,
    /// which RFC 7692 §6 allows per message).
    ///
    /// The output is a sync-flushed raw DEFLATE stream with the trailing empty stored block
    /// `00 00 FF FF` removed (RFC 7692 §7.2.1). With context takeover the LZ77 window carries
    /// over to the next message; without it the stream is reset (§7.1.1.1).
    public func compress(_ message: [UInt8]) -> [UInt8]? {
        guard message.count <= Int(UInt32.max), ensureInitialized() else { return nil }
        var output: [UInt8]?
        message.withUnsafeBufferPointer { input in
            stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.pointee.avail_in = UInt32(truncatingIfNeeded: input.count)
            output = deflateAvailableInput(sizeHint: input.count)
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        guard var output else { return nil }
        if output.count >= 4, output[output.count - 4] == 0x00, output[output.count - 3] == 0x00,
           output[output.count - 2] == 0xFF, output[output.count - 1] == 0xFF {
            output.removeLast(4)
        }
        // An empty message right after a sync flush leaves zlib nothing to emit; the peer still
        // needs the empty stored block, which minus its `00 00 FF FF` tail is one 0x00 octet
        // (RFC 7692 §7.2.3.6). Sending zero octets would make it inflate `00 00 FF FF` alone.
        if output.isEmpty { output = [0x00] }
        if noContextTakeover, deflateReset(stream) != Z_OK { return nil }
        return output
    }

    /// Deflates with a sync flush into a buffer sized by `deflateBound` (plus room for the flush
    /// marker), so one uninitialised allocation normally holds it all; more chunks only if not.
    private func deflateAvailableInput(sizeHint: Int) -> [UInt8]? {
        var capacity = Int(truncatingIfNeeded: deflateBound(stream, UInt(sizeHint))) + 16
        var output: [UInt8] = []
        while true {
            var code = Z_OK
            let chunk = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = UInt32(truncatingIfNeeded: buffer.count)
                code = deflate(stream, Z_SYNC_FLUSH)
                initialized = buffer.count - Int(stream.pointee.avail_out)
            }
            guard code == Z_OK || code == Z_BUF_ERROR else { return nil }
            let unused = capacity - chunk.count
            if output.isEmpty { output = chunk } else { output += chunk }
            // Output space left over means zlib has consumed the input and flushed everything.
            if unused > 0 { return stream.pointee.avail_in == 0 ? output : nil }
            capacity = 4_096
        }
    }

    private func ensureInitialized() -> Bool {
        if initialized { return true }
        guard whisper_deflateInit2(stream, level, windowBits, memoryLevel) == Z_OK else { return false }
        initialized = true
        return true
    }
}
