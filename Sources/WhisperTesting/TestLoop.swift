import WhisperRuntime

/// One started event loop for a test, and a way to run loop-thread code from async tests.
public final class TestLoop: Sendable {
    public let group: EventLoopGroup
    public var loop: EventLoop { group.loops[0] }

    public init() throws {
        group = try EventLoopGroup(threads: 1)
        group.start()
    }

    /// Runs `body` on the loop; returns what it passes to `done` (from any later callback).
    public func run<T: Sendable>(_ body: @escaping @Sendable (_ done: @escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in
            loop.execute { body { continuation.resume(returning: $0) } }
        }
    }

    public func shutdown() {
        group.shutdown()
    }
}
