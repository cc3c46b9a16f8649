/// Bytes queued for one connection. The first frame queued into an empty buffer is adopted
/// without a copy (arrays are copy-on-write); later ones are appended. A fully flushed
/// buffer drops its storage, so an idle connection holds no output memory — unless it keeps
/// its capacity (`keepsCapacity`, up to `keptCapacityLimit`): a connection that writes every
/// iteration (a node's Redis link) then appends into the same storage instead of growing a
/// new buffer, and freeing it, each time.
struct OutputBuffer {
    private var bytes: [UInt8] = []
    private var offset = 0
    var keepsCapacity = false

    static let keptCapacityLimit = 1 << 20

    var pendingCount: Int { bytes.count - offset }
    var isEmpty: Bool { offset == bytes.count }

    mutating func append(_ frame: [UInt8]) {
        if bytes.isEmpty, !keepsCapacity {
            bytes = frame
        } else {
            bytes.append(contentsOf: frame)
        }
    }

    mutating func append(_ frame: ArraySlice<UInt8>) {
        bytes.append(contentsOf: frame)
    }

    /// Hands the unsent bytes to `write`, which returns how many it consumed.
    mutating func drain(_ write: (UnsafeRawBufferPointer) throws(TransportError) -> IOResult<Int>) throws(TransportError) -> IOResult<Int> {
        guard !isEmpty else { return .done(0) }
        let start = offset
        let attempt = bytes.withUnsafeBytes { raw in
            Result { () throws(TransportError) in try write(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        }
        let result = try attempt.get()
        if case .done(let written) = result {
            offset += written
            if offset == bytes.count {
                if keepsCapacity, bytes.capacity <= Self.keptCapacityLimit {
                    bytes.removeAll(keepingCapacity: true)
                } else {
                    bytes = []
                }
                offset = 0
            } else if offset >= 65_536, offset * 2 >= bytes.count {
                bytes.removeFirst(offset)
                offset = 0
            }
        }
        return result
    }

    mutating func removeAll() {
        bytes = []
        offset = 0
    }
}
