import WhisperRuntime

extension LoopBound {
    /// Runs `body` on the value's loop and waits for the answer it passes to its completion
    /// (exactly once, now or from a later callback on the loop).
    func run<T: Sendable>(_ body: @escaping @Sendable (Value, @escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in
            deliver { value in body(value) { continuation.resume(returning: $0) } }
        }
    }
}

/// Runs the same step on every shard at once and collects the answers in shard order.
func gather<Shard, T: Sendable>(_ shards: [LoopBound<Shard>],
                                _ body: @escaping @Sendable (Shard, @escaping @Sendable (T) -> Void) -> Void) async -> [T] {
    await withTaskGroup(of: (Int, T).self) { group in
        for (index, shard) in shards.enumerated() {
            group.addTask { (index, await shard.run(body)) }
        }
        var answers: [(Int, T)] = []
        for await answer in group { answers.append(answer) }
        return answers.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
