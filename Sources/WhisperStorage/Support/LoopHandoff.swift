import WhisperRuntime

/// Carries a loop-confined value (a completion closure, a session) through another thread
/// and back to its loop. Swift cannot prove that round trip safe, hence `@unchecked
/// Sendable`: the value is only ever opened inside `loop.execute`, on the loop's thread.
/// (Named apart from the runtime's `LoopBound`, which newer runtimes export, so the two
/// never shadow each other.)
struct LoopHandoff<Value>: @unchecked Sendable {
    private let value: Value
    let loop: EventLoop

    init(_ value: Value, on loop: EventLoop) {
        self.value = value
        self.loop = loop
    }

    /// Runs `body` with the value on the loop's thread.
    func deliver(_ body: @escaping @Sendable (Value) -> Void) {
        loop.execute { body(self.value) }
    }
}
