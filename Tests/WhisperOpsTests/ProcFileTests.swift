import Glibc
import Testing
@testable import WhisperOps

/// `ProcFile.countEntries` backs `process_open_fds` (/proc/self/fd) on `/metrics`.
@Suite struct ProcFileTests {
    static func makeDirectory() throws -> String {
        let path = "/tmp/whisper-procfile-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try #require(mkdir(path, 0o700) == 0)
        return path
    }

    /// glibc packs directory entries back to back in one 32 KiB buffer, each only as long as its
    /// name: copying `dirent.d_name` (256 bytes) out of the last short entry reads past the
    /// buffer. Found by `WHISPER_SANITIZE=address scripts/test` (docs/security.md "Sanitizers");
    /// this directory fills the buffer so that the last entry sits at its end, and the read past
    /// it is a heap-buffer-overflow under AddressSanitizer.
    @Test func countEntries_readsOnlyTheNames_whenShortEntriesFillTheReadBuffer() throws {
        let directory = try Self.makeDirectory()
        let names = (0..<3000).map { String($0, radix: 36) }
        defer {
            for name in names { unlink(directory + "/" + name) }
            rmdir(directory)
        }
        for name in names {
            let descriptor = open(directory + "/" + name, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            close(descriptor)
        }
        #expect(ProcFile.countEntries(directory) == names.count)
    }

    @Test func countEntries_skipsDotAndDotDot_andIsNilForAMissingDirectory() throws {
        let directory = try Self.makeDirectory()
        defer {
            for name in [".hidden", "..x", "a"] { unlink(directory + "/" + name) }
            rmdir(directory)
        }
        #expect(ProcFile.countEntries(directory) == 0)
        for name in [".hidden", "..x", "a"] { close(open(directory + "/" + name, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)) }
        #expect(ProcFile.countEntries(directory) == 3)
        #expect(ProcFile.countEntries(directory + "/missing") == nil)
    }
}
