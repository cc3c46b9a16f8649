#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A failed system call: the call's name and its errno, kept together so every log line
/// and error says which call failed and why.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// Captures the calling thread's current errno.
    static func last(_ call: String) -> SystemError {
        SystemError(call, errno: Glibc.errno)
    }

    public var description: String {
        "\(call): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Outcome of a non-blocking I/O call: EAGAIN is a value, not an error.
public enum IOResult<Value>: Sendable where Value: Sendable {
    case done(Value)
    case wouldBlock
}
