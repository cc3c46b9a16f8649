import WhisperStorage

/// The `/ready` checks, run concurrently: a PostgreSQL round trip, a Redis PING on this
/// loop's connection, and the migration state.
enum Readiness {
    struct Report {
        var checks: [(String, Bool)]
        var isReady: Bool { checks.allSatisfy { $0.1 } }
    }

    static func check(_ context: LoopContext, _ done: @escaping (Report) -> Void) {
        let shared = context.shared
        var results: [String: Bool] = ["draining": !shared.isDraining]
        let names = ["postgres", "redis", "migrations"]
        var remaining = names.count
        let finish = { (name: String, ok: Bool) in
            results[name] = ok
            remaining -= 1
            if remaining == 0 {
                done(Report(checks: (names + ["draining"]).map { ($0, results[$0] ?? false) }))
            }
        }
        if let postgres = shared.postgres {
            postgres.ping(on: context.loop) { finish("postgres", $0) }
        } else {
            finish("postgres", false)
        }
        context.redis.send([Array("PING".utf8)]) { result in
            if case .success(.status(let s)) = result { finish("redis", s == "PONG") } else { finish("redis", false) }
        }
        if let migrator = shared.migrator {
            migrator.pendingCount(on: context.loop) { result in
                if case .success(0) = result { finish("migrations", true) } else { finish("migrations", false) }
            }
        } else {
            finish("migrations", false)
        }
    }
}
