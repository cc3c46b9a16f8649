import WhisperOps
import WhisperProtocol

/// The server's view of the metrics of contract §12: intention-named methods over the
/// registry, with labelled children resolved once here instead of on every event.
final class ServerMetrics: Sendable {
    let base: WhisperMetrics
    private let errorsByCode: [ErrorCode: Counter]

    init(_ base: WhisperMetrics) {
        self.base = base
        var errors: [ErrorCode: Counter] = [:]
        for code in ErrorCode.allCases { errors[code] = base.errors.labels(code.rawValue) }
        self.errorsByCode = errors
    }

    func exposition() -> String { base.registry.exposition() }

    func httpRequest(listener: ListenerKind, status: Int) {
        base.httpRequests.labels(listener.rawValue, String(status)).increment()
    }

    func webSocketOpened() { base.wsConnections.increment() }

    func webSocketClosed(slowConsumer: Bool) {
        base.wsConnections.decrement()
        if slowConsumer { base.slowConsumerDisconnects.increment() }
    }

    func error(_ code: ErrorCode) { errorsByCode[code]?.increment() }

    /// `whisper_ws_authenticated_connections`, moved only by `ConnectionRegistry`.
    var authenticatedConnections: Gauge { base.wsAuthenticatedConnections }
}
