import Glibc
import Synchronization

/// Writes each line with `write(2)` straight to a file descriptor (stdout by default): there is no
/// user-space buffer, so nothing is lost when the process crashes. A mutex keeps lines from
/// different threads whole even past PIPE_BUF; partial writes and EINTR are retried.
///
/// If the descriptor is non-blocking and full (EAGAIN) or broken, the line is dropped and
/// counted rather than stalling an event loop.
public final class FileDescriptorLogSink: LogSink {
    /// The process's standard output.
    public static let standardOutput = FileDescriptorLogSink(fileDescriptor: STDOUT_FILENO)
    /// The process's standard error.
    public static let standardError = FileDescriptorLogSink(fileDescriptor: STDERR_FILENO)

    private let fileDescriptor: Int32
    private let lock = Mutex(())
    private let dropped = Atomic<Int>(0)

    /// The descriptor is borrowed, never closed.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Lines lost to EAGAIN or a write error since start.
    public var droppedLines: Int { dropped.load(ordering: .relaxed) }

    public func write(line: [UInt8]) {
        let complete = lock.withLock { _ in
            line.withUnsafeBytes { buffer -> Bool in
                var offset = 0
                while offset < buffer.count {
                    guard let base = buffer.baseAddress else { return true }
                    let written = Glibc.write(fileDescriptor, base + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return false
                    }
                }
                return true
            }
        }
        if !complete { dropped.wrappingAdd(1, ordering: .relaxed) }
    }
}
