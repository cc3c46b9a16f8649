import WhisperOps

/// Batches of logins and closes, shared by the scenarios.
extension ShardContext {
    /// Logs every phone in (a recovery login where the phone has a whisperId), at most
    /// `concurrency` at once; `identity` may swap in a new device's identity per phone.
    /// Calls `completion` once all have logged in or failed. With `closeAfterLogin` each phone
    /// starts its Close right after `register_ack` (its slot frees at once; the close goes on).
    func logIn(_ phones: [Phone], concurrency: Int, identity: ((Phone) -> BenchIdentity?)? = nil,
               closeAfterLogin: Bool = false, completion: @escaping (LoginTally) -> Void) {
        let queue = JobQueue(limit: concurrency)
        let box = TallyBox()
        for phone in phones {
            queue.add { [self] done in
                let started = MonotonicClock.now()
                phone.logIn(context: self, identity: identity?(phone)) { result in
                    switch result {
                    case .success:
                        box.tally.succeeded += 1
                        box.tally.latency.record(nanoseconds: MonotonicClock.now() - started)
                        if closeAfterLogin { phone.close() }
                    case .failure(let failure):
                        box.tally.failures.add(failure.label)
                    }
                    done()
                }
            }
        }
        queue.whenDrained { completion(box.tally) }
    }

    /// Closes every phone (Close handshake) and calls `completion` when all have ended, or
    /// after `timeoutSeconds` whatever remains.
    func closeAll(_ phones: [Phone], timeoutSeconds: Double = 3, completion: @escaping () -> Void) {
        for phone in phones { phone.close() }
        let deadline = MonotonicClock.now() + MonotonicClock.nanoseconds(timeoutSeconds)
        func check() {
            if MonotonicClock.now() >= deadline || phones.allSatisfy(\.hasEnded) { return completion() }
            loop.schedule(afterNanoseconds: 10_000_000) { check() }
        }
        check()
    }
}

/// Lets the escaping login callbacks of one batch add to one tally.
private final class TallyBox {
    var tally = LoginTally()
}
