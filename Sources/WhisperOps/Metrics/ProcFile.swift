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
        // glibc hands out entries only as long as their names (`d_reclen`), packed in one
        // buffer: the name is read in place up to its NUL, never copied as the whole 256-byte
        // `d_name`, which runs past the buffer for the last entry (found by AddressSanitizer).
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name),
              let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        // The last entry of a large directory (/proc/self/fd with thousands of sockets) can
        // also end at a page boundary: the copy then faulted (found by the 10,000-connection test).
        var count = 0
        while let entry = readdir(directory) {
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            if strcmp(name, ".") != 0 && strcmp(name, "..") != 0 { count += 1 }
        }
        return count
    }
}
