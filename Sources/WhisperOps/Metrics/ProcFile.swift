import Glibc

/// Reads small pseudo-files (/proc, /sys) with plain syscalls. Their size is reported as 0, so
/// they are read until EOF; a cap keeps a surprise from growing without bound.
public enum ProcFile {
    public static func readText(_ path: String, limit: Int = 1 << 20) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while contents.count < limit {
            let count = chunk.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress, buffer.count)
            }
            if count > 0 {
                contents.append(contentsOf: chunk[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else if count == 0 {
                break
            } else {
                return nil
            }
        }
        return String(decoding: contents, as: UTF8.self)
    }

    /// Entries in a directory other than `.` and `..`; nil if it cannot be opened.
    static func countEntries(_ path: String) -> Int? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        // `entry.pointee.d_name` would copy all 256 bytes of the field, but the kernel packs
        // entries by `d_reclen`: the last one of a large directory (/proc/self/fd with
        // thousands of sockets) can end at a page boundary, and the copy then faults. Only
        // the name's first bytes — NUL-terminated within the record — are read.
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return nil }
        var count = 0
        while let entry = readdir(directory) {
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            let dot = UInt8(ascii: ".")
            let isDotOrDotDot = name[0] == dot && (name[1] == 0 || (name[1] == dot && name[2] == 0))
            if !isDotOrDotDot { count += 1 }
        }
        return count
    }
}
