/// Polls `condition` every `interval` seconds until it holds or `seconds` pass; one last
/// look at the deadline. The one polling helper of the suite.
public func eventually(within seconds: Double = 5, every interval: Double = 0.05,
                       _ condition: () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(seconds)
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .seconds(interval))
    }
    return await condition()
}

/// `body`'s result and the seconds it took.
public func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try await body()
    let elapsed = (clock.now - start).components
    return (value, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
}

/// Runs `body`, then `cleanup` whether `body` returned or threw: a `defer` that may await.
public func withCleanup<T>(_ body: () async throws -> T, cleanup: () async -> Void) async rethrows -> T {
    let value: T
    do {
        value = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return value
}
