/// Carries a loop-owned, non-Sendable object across a thread boundary so that it can be
/// used back on its loop. The value can only be read on that loop's thread, which is what
/// makes the unchecked conformance sound.
public struct LoopBound<Value>: @unchecked Sendable {
    public let loop: EventLoop
    private let stored: Value

    public init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        self.stored = value
    }

    public var value: Value {
        precondition(loop.inEventLoop, "LoopBound value read off its loop")
        return stored
    }

    /// Runs `body` with the value on its loop's thread; callable from any thread.
    public func deliver(_ body: @escaping @Sendable (Value) -> Void) {
        loop.execute { body(self.value) }
    }
}
