import Synchronization

/// Counters a pool shares across its workers, read by the server for metrics and /ready.
final class PostgresPoolStats: Sendable {
    /// Connections re-established after one was lost.
    let reconnects = Atomic<Int>(0)
    /// Workers currently holding a healthy connection.
    let connectedWorkers = Atomic<Int>(0)
}
