#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Synchronization

/// N event loops, one thread each (`WHISPER_THREADS`, default the core count).
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let running = Atomic<Int>(0)
    private let cursor = Atomic<Int>(0)

    public init(threads count: Int) throws(SystemError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, count) { loops.append(try EventLoop(index: index)) }
        self.loops = loops
    }

    /// Starts one thread per loop.
    public func start() {
        for loop in loops {
            running.add(1, ordering: .relaxed)
            NamedThread.start("whisper-loop-\(loop.index)", stackSize: 1 << 20) { [self] in
                loop.run()
                running.subtract(1, ordering: .releasing)
            }
        }
    }

    /// Round-robin choice, for work not tied to a connection.
    public func next() -> EventLoop {
        let i = cursor.add(1, ordering: .relaxed).newValue
        return loops[i % loops.count]
    }

    /// Stops every loop and waits (bounded) for their threads to return.
    public func shutdown(timeoutSeconds: Double = 5) {
        for loop in loops { loop.stop() }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while running.load(ordering: .acquiring) > 0, Date() < deadline {
            usleep(2_000)
        }
    }
}
