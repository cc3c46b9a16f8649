import CLinux

/// Readiness interest and readiness reported for one descriptor.
public struct IOEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let read = IOEvents(rawValue: CLINUX_EPOLLIN)
    public static let write = IOEvents(rawValue: CLINUX_EPOLLOUT)
    /// Error or hang-up. Handlers treat it as readable: the next read reports what happened.
    public static let hangup = IOEvents(rawValue: CLINUX_EPOLLERR | CLINUX_EPOLLHUP | CLINUX_EPOLLRDHUP)
}

/// Receives readiness for a descriptor registered with an `EventLoop`. Called on the
/// loop's thread only.
public protocol IOHandler: AnyObject {
    func ioReady(_ events: IOEvents)
}

/// A registration token; stale events for a deregistered token are dropped by the loop.
public struct IORegistration: Hashable, Sendable {
    let token: UInt64
    let fd: Int32
}
