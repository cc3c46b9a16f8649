import Foundation
import Synchronization
@testable import WhisperRuntime

/// Runs `body` on `loop` and returns its result to the async test.
func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        loop.execute { continuation.resume(returning: body()) }
    }
}

/// A thread-safe box for observations made on the loop.
final class Box<T: Sendable>: Sendable {
    private let value: Mutex<T>
    init(_ value: T) { self.value = Mutex(value) }
    var get: T { value.withLock { $0 } }
    func update(_ body: (inout T) -> Void) { value.withLock { body(&$0) } }
}
