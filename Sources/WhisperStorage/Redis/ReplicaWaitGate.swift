/// The `WAIT`s of one script run (`RedisClient.evalScript(_:retryOnce:then:reading:completion:)`).
/// A `WAIT` goes behind every send of the script — EVALSHA, EVAL after `NOSCRIPT`, a rerun on a
/// new link — and only the one behind the send whose reply was final counts: it is the next
/// reply on that connection, after the script's. Loop-confined.
final class ReplicaWaitGate {
    private let wait: RedisReplicaWait
    private var sends = 0
    /// The send whose `WAIT` counts; 0 until the script's final reply.
    private var counted = 0
    private var onReply: ((Int?) -> Void)?

    init(_ wait: RedisReplicaWait) { self.wait = wait }

    /// The `WAIT` to pipeline behind the next send.
    func trailer() -> RedisTrailer {
        sends += 1
        let send = sends
        return RedisTrailer(command: wait.command) { [self] result in replied(result, send: send) }
    }

    /// The script's final reply came, for the latest send: `handler` hears that send's `WAIT`.
    func expect(_ handler: @escaping (_ replicas: Int?) -> Void) {
        counted = sends
        onReply = handler
    }

    private func replied(_ result: Result<RedisReply, RedisError>, send: Int) {
        guard send == counted, let handler = onReply else { return }
        onReply = nil
        guard case .success(let reply) = result, let replicas = reply.integer else { return handler(nil) }
        handler(Int(clamping: replicas))
    }
}
