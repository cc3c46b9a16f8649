#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import WhisperRuntime

/// The threads that wait for the process's signals (`main`: SIGTERM/SIGINT start the drain,
/// SIGHUP reloads TLS). A signal handler only writes to a descriptor (an eventfd); a thread of
/// ours, named so `top -H` and profiles say what it is, blocks reading it and does the work.
public enum SignalWatch {
    /// Calls `onSignal` on a thread named `name` each time 8 bytes can be read from `fd`, until
    /// reading fails or finds the end.
    public static func every(_ name: String, fd: Int32, _ onSignal: @escaping @Sendable () -> Void) {
        NamedThread.start(name) {
            var value: UInt64 = 0
            while true {
                let count = read(fd, &value, 8)
                if count == 8 { onSignal() } else if count == 0 || errno != EINTR { return }
            }
        }
    }

    /// Returns once 8 bytes were read from `fd` (or reading failed), waiting on a thread named `name`.
    public static func once(_ name: String, fd: Int32) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            NamedThread.start(name) {
                var value: UInt64 = 0
                while read(fd, &value, 8) < 0 && errno == EINTR {}
                continuation.resume()
            }
        }
    }
}
