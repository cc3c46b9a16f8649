import WhisperRuntime

/// One started event loop for a test, and a way to run loop-thread code from async tests.
final class TestLoop: Sendable {
    let group: EventLoopGroup
    var loop: EventLoop { group.loops[0] }

    init() throws {
        group = try EventLoopGroup(threads: 1)
        group.start()
    }

    /// Runs `body` on the loop; returns what it passes to `done` (from any later callback).
    func run<T: Sendable>(_ body: @escaping @Sendable (_ done: @escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in
            loop.execute { body { continuation.resume(returning: $0) } }
        }
    }

    func shutdown() {
        group.shutdown()
    }
}
