#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Reads small /proc files with plain syscalls: their size reads as 0, so they are read to
/// EOF, with a cap.
enum ProcReader {
    static func text(_ path: String, limit: Int = 1 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while contents.count < limit {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                contents.append(contentsOf: chunk[..<n])
            } else if n == 0 {
                break
            } else if errno != EINTR {
                return nil
            }
        }
        return String(decoding: contents, as: UTF8.self)
    }
}
