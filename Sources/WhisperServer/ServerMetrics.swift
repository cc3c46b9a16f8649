import WhisperOps
import WhisperProtocol
import WhisperRuntime

/// The server's view of the metrics of docs/operations.md "Health, readiness, metrics": intention-named methods over the
/// registry, with labelled children resolved once here instead of on every event.
final class ServerMetrics: Sendable {
    let base: WhisperMetrics
    private let errorsByCode: [ErrorCode: Counter]
    private let deliveredLiveCounter: Counter

    init(_ base: WhisperMetrics) {
        self.base = base
        var errors: [ErrorCode: Counter] = [:]
        for code in ErrorCode.allCases { errors[code] = base.errors.labels(code.rawValue) }
        self.errorsByCode = errors
        self.deliveredLiveCounter = base.messagesDelivered.labels("live")
        for reason in ProxyHeaderError.metricReasons { _ = base.connectionsRefused.labels(reason) }
    }

    /// A `message_received` written to its recipient's socket: counted, and the time since
    /// the server read the `send_message` (on whichever node) goes into
    /// `whisper_routing_latency_seconds`.
    func deliveredLive(receivedAtMicros: Int64) {
        deliveredLiveCounter.increment()
        let elapsed = WallTime.now().epochMicros - receivedAtMicros
        if receivedAtMicros > 0, elapsed >= 0 { base.routingLatency.observe(Double(elapsed) / 1e6) }
    }

    func exposition() -> String { base.registry.exposition() }

    func httpRequest(listener: ListenerKind, status: Int) {
        base.httpRequests.labels(listener.rawValue, String(status)).increment()
    }

    /// A connection closed before it was served (`whisper_connections_refused_total{reason}`).
    func connectionRefused(reason: String) { base.connectionsRefused.labels(reason).increment() }

    func webSocketOpened() { base.wsConnections.increment() }

    func webSocketClosed(slowConsumer: Bool) {
        base.wsConnections.decrement()
        if slowConsumer { base.slowConsumerDisconnects.increment() }
    }

    func error(_ code: ErrorCode) { errorsByCode[code]?.increment() }

    /// `whisper_ws_authenticated_connections`, moved only by `ConnectionRegistry`.
    var authenticatedConnections: Gauge { base.wsAuthenticatedConnections }
}
