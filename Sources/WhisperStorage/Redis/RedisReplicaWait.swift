/// `WAIT <replicas> <timeout>` sent right behind a write on the same connection: Redis answers
/// it once that many replicas acknowledged every write the connection made so far, or when the
/// timeout passes, with the number that did. Replication stays asynchronous; this only tells
/// the caller whether its write reached them before it answers its own client
/// (docs/operations.md "Durability of accepted messages").
///
/// `WAIT` blocks the connection it is on: the commands pipelined behind it (other users' on the
/// same loop) wait for it too, at most `timeoutMillis` when replicas lag.
public struct RedisReplicaWait: Sendable {
    public let replicas: Int
    public let timeoutMillis: Int
    /// `WAIT <replicas> <timeoutMillis>`, encoded once.
    let command: ArraySlice<UInt8>

    /// `replicas` ≥ 1 and `timeoutMillis` ≥ 1 (`WAIT … 0` would block forever).
    public init(replicas: Int, timeoutMillis: Int) {
        self.replicas = max(1, replicas)
        self.timeoutMillis = max(1, timeoutMillis)
        var command = RedisCommand([Array("WAIT".utf8), Array(String(self.replicas).utf8),
                                    Array(String(self.timeoutMillis).utf8)])
        self.command = command.finish()
    }

    /// What `configuration` asks for (`minReplicas`); nil when it asks for no replica.
    public init?(_ configuration: RedisConfiguration) {
        guard configuration.minReplicas > 0 else { return nil }
        self.init(replicas: configuration.minReplicas, timeoutMillis: configuration.replicaWaitTimeoutMillis)
    }
}

/// A command pipelined right behind another on the same connection (a `WAIT` behind its
/// script), and what hears its reply.
struct RedisTrailer {
    let command: ArraySlice<UInt8>
    let completion: (Result<RedisReply, RedisError>) -> Void
}
