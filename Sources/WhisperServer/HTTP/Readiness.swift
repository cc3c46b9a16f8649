import WhisperOps
import WhisperRuntime
import WhisperStorage

/// The `/ready` checks (docs/operations.md "Health, readiness, metrics"), run concurrently: a
/// PostgreSQL round trip, the migration state, a Redis write and read, a canary published on
/// the node's own readiness channel that its subscriber must hand back, and the first
/// heartbeat. Node-wide the remote checks run at most once per `Limits.readinessCacheMillis`
/// (`ReadinessProbe`); `heartbeat` and `draining` are local flags read live on every request,
/// so a node turns ready as soon as its first heartbeat lands, not a cache period later.
enum Readiness {
    struct Report: Sendable {
        var checks: [(String, Bool)]
        var isReady: Bool { checks.allSatisfy { $0.1 } }
    }

    static let pathChecks = ["postgres", "redis", "migrations", "subscription"]

    static func check(_ context: LoopContext, _ done: @escaping (Report) -> Void) {
        let shared = context.shared, probe = shared.readinessProbe
        let reply = LoopBound(done, loop: context.loop)
        let waiter: @Sendable (Report) -> Void = { report in
            reply.deliver {
                $0(Report(checks: report.checks + [("heartbeat", probe.hasWrittenHeartbeat), ("draining", !shared.isDraining)]))
            }
        }
        let maxAge = UInt64(shared.limits.readinessCacheMillis) * 1_000_000
        switch probe.begin(now: MonotonicClock.now(), maxAgeNanos: maxAge, waiter: waiter) {
        case .cached(let report): waiter(report)
        case .wait: break
        case .run:
            runChecks(context) { report in
                for waiter in probe.finish(report, now: MonotonicClock.now()) { waiter(report) }
            }
        }
    }

    private static func runChecks(_ context: LoopContext, _ done: @escaping (Report) -> Void) {
        let shared = context.shared
        var results: [String: Bool] = [:]
        var remaining = pathChecks.count
        let finish = { (name: String, ok: Bool) in
            guard results[name] == nil else { return }  // late answers after the deadline
            results[name] = ok
            remaining -= 1
            if remaining == 0 { done(Report(checks: pathChecks.map { ($0, results[$0] ?? false) })) }
        }
        // A stalled dependency answers nothing: its check fails at the deadline instead.
        context.loop.schedule(afterNanoseconds: UInt64(shared.limits.readinessCheckTimeoutMillis) * 1_000_000) {
            for name in pathChecks where results[name] == nil { finish(name, false) }
        }
        if let postgres = shared.postgres {
            postgres.ping(on: context.loop) { finish("postgres", $0) }
        } else {
            finish("postgres", false)
        }
        if let migrator = shared.migrator {
            migrator.pendingCount(on: context.loop) { result in
                if case .success(0) = result { finish("migrations", true) } else { finish("migrations", false) }
            }
        } else {
            finish("migrations", false)
        }
        let canary = shared.readinessProbe.nextCanary()
        writeAndRead(context, canary) { finish("redis", $0) }
        roundTrip(context, canary) { finish("subscription", $0) }
    }

    /// SET then GET of `ready:{node}`: Redis takes writes (not a read-only replica, not out of memory).
    private static func writeAndRead(_ context: LoopContext, _ canary: UInt64, _ done: @escaping (Bool) -> Void) {
        let key = context.shared.redisKeys.readiness(context.shared.nodeId), value = Array(String(canary).utf8)
        context.redis.send([Array("SET".utf8), key, value, Array("PX".utf8), Array("10000".utf8)]) { result in
            guard case .success(.status("OK")) = result else { return done(false) }
            context.redis.send([Array("GET".utf8), key]) { result in
                if case .success(.bulk(let read?)) = result { done(read == value) } else { done(false) }
            }
        }
    }

    /// The canary published on `ready:{node}` (`RedisClient.publish`), which this node's subscriber listens to beside
    /// `deliver:{node}` on the same connection: ok once the subscriber has seen it, so a dead
    /// or wedged subscription (deliveries silently lost) fails within the canary timeout.
    private static func roundTrip(_ context: LoopContext, _ canary: UInt64, _ done: @escaping (Bool) -> Void) {
        let shared = context.shared
        let deadline = MonotonicClock.now() + UInt64(shared.limits.readinessCanaryTimeoutMillis) * 1_000_000
        let channel = shared.redisKeys.readiness(shared.nodeId)
        context.redis.publish(channel, Array(String(canary).utf8)) { result in
            // 0 receivers: this node is not subscribed at all.
            guard case .success(let receivers) = result, receivers > 0 else { return done(false) }
            func poll() {
                if shared.readinessProbe.hasSeenCanary(canary) { return done(true) }
                if MonotonicClock.now() >= deadline { return done(false) }
                context.loop.schedule(afterNanoseconds: 5_000_000) { poll() }
            }
            poll()
        }
    }
}
