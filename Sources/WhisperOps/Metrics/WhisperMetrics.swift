/// The relay's metrics (docs/operations.md "Health, readiness, metrics"), registered once at start-up and shared by every thread.
/// Fetch labelled children once and keep them (`metrics.messagesDelivered.labels("live")`);
/// the series every dashboard needs exist from the first scrape at 0.
///
/// | metric | type | labels |
/// |---|---|---|
/// | `whisper_ws_connections` | gauge | |
/// | `whisper_ws_authenticated_connections` | gauge | |
/// | `whisper_messages_accepted_total` | counter | `kind` (direct, group, …) |
/// | `whisper_messages_delivered_total` | counter | `path` = live \| pending |
/// | `whisper_pending_messages` | gauge | |
/// | `whisper_routing_latency_seconds` | histogram | |
/// | `whisper_errors_total` | counter | `code` (protocol error code) |
/// | `whisper_push_total` | counter | `provider`, `result` |
/// | `whisper_push_oauth_failures_total` | counter | `provider` = fcm |
/// | `whisper_call_setup_total` | counter | `result` |
/// | `whisper_rate_limited_total` | counter | `action` (`RateLimitAction.rawValue`) |
/// | `whisper_http_requests_total` | counter | `listener` = public \| admin, `status` |
/// | `whisper_ws_slow_consumer_disconnects_total` | counter | |
/// | `whisper_connections_refused_total` | counter | `reason` = per_ip \| per_ip_rate \| proxy_header_invalid \| proxy_header_too_long \| proxy_header_truncated \| proxy_header_timeout |
/// | `whisper_redis_reconnects_total` | counter | collected by the server from its Redis links |
/// | `whisper_redis_wait_shortfall_total` | counter | |
/// | `whisper_postgres_reconnects_total` | counter | collected by the server from its PostgreSQL pool (with a database) |
/// | `whisper_ed25519_verify_seconds` | histogram | |
/// | `whisper_attachments_total` | counter | `event` = presigned \| download \| deleted \| delete_failed |
/// | `whisper_build_info` | gauge, always 1 | `version`, `commit`, `build_date` (`BuildInfo`) |
/// | `process_*` | | see `ProcessMetrics` |
public struct WhisperMetrics: Sendable {
    public let registry: MetricsRegistry
    public let wsConnections: Gauge
    public let wsAuthenticatedConnections: Gauge
    public let messagesAccepted: CounterFamily
    public let messagesDelivered: CounterFamily
    public let pendingMessages: Gauge
    public let routingLatency: Histogram
    public let errors: CounterFamily
    public let push: CounterFamily
    public let pushOAuthFailures: CounterFamily
    public let callSetup: CounterFamily
    public let callUnconfirmed: Counter
    public let redisWaitShortfall: Counter
    public let rateLimited: CounterFamily
    public let httpRequests: CounterFamily
    public let slowConsumerDisconnects: Counter
    public let connectionsRefused: CounterFamily
    public let ed25519Verify: Histogram
    public let attachments: CounterFamily
    public let buildInfo: Gauge

    /// Routing latency, accept → handed to the recipient's socket or stored: 0.5 ms … 5 s.
    public static let routingLatencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
    ]
    /// One Ed25519 verification: 10 µs … 10 ms.
    public static let ed25519VerifyBuckets: [Double] = [
        0.00001, 0.00002, 0.00003, 0.00005, 0.000075, 0.0001, 0.00015, 0.0002, 0.0003, 0.0005, 0.001,
        0.002, 0.005, 0.01,
    ]

    /// Registers everything in `registry` (and the `process_*` collector unless disabled, e.g.
    /// in tests that compare exact output). Calling it twice on one registry returns the same
    /// metrics, except that the process collector would be added twice.
    public init(registry: MetricsRegistry = MetricsRegistry(), includeProcessMetrics: Bool = true,
                build: BuildInfo = .current) {
        self.registry = registry
        wsConnections = registry.gauge("whisper_ws_connections", help: "Open WebSocket connections.")
        wsAuthenticatedConnections = registry.gauge(
            "whisper_ws_authenticated_connections", help: "WebSocket connections with a logged-in session.")
        messagesAccepted = registry.counter(
            "whisper_messages_accepted_total", help: "Messages accepted from senders, by kind.",
            labelNames: ["kind"])
        messagesDelivered = registry.counter(
            "whisper_messages_delivered_total",
            help: "Messages handed to a recipient, live on its socket or from the pending queue.",
            labelNames: ["path"])
        pendingMessages = registry.gauge(
            "whisper_pending_messages", help: "Messages waiting in pending queues.")
        routingLatency = registry.histogram(
            "whisper_routing_latency_seconds",
            help: "Time from accepting a message to delivering or storing it.",
            buckets: Self.routingLatencyBuckets)
        errors = registry.counter(
            "whisper_errors_total", help: "Error frames sent to clients, by protocol error code.",
            labelNames: ["code"])
        push = registry.counter(
            "whisper_push_total", help: "Push notification attempts, by provider and result.",
            labelNames: ["provider", "result"])
        pushOAuthFailures = registry.counter(
            "whisper_push_oauth_failures_total",
            help: "Failed fetches of a push provider's OAuth access token (each starts a backoff for the provider).",
            labelNames: ["provider"])
        callSetup = registry.counter(
            "whisper_call_setup_total", help: "Call setups, by result.", labelNames: ["result"])
        callUnconfirmed = registry.counter(
            "whisper_call_unconfirmed_total",
            help: "Offers on a live-looking socket that no call_received confirmed in time (pushed as to an offline callee).")
        redisWaitShortfall = registry.counter(
            "whisper_redis_wait_shortfall_total",
            help: "Accepted messages fewer replicas than WHISPER_REDIS_MIN_REPLICAS confirmed in time (the sender got INTERNAL_ERROR and retries).")
        rateLimited = registry.counter(
            "whisper_rate_limited_total", help: "Requests refused by a rate limit, by action.",
            labelNames: ["action"])
        httpRequests = registry.counter(
            "whisper_http_requests_total", help: "HTTP responses, by listener and status code.",
            labelNames: ["listener", "status"])
        slowConsumerDisconnects = registry.counter(
            "whisper_ws_slow_consumer_disconnects_total",
            help: "WebSocket connections closed because their output buffer passed its limit.")
        connectionsRefused = registry.counter(
            "whisper_connections_refused_total",
            help: "Connections closed before they were served, by reason (per_ip: the address held its limit; per_ip_rate: it opened connections too fast; proxy_header_*: a balancer's PROXY header was bad, too long, cut short or late).",
            labelNames: ["reason"])
        ed25519Verify = registry.histogram(
            "whisper_ed25519_verify_seconds", help: "Time spent verifying one Ed25519 signature.",
            buckets: Self.ed25519VerifyBuckets)

        attachments = registry.counter(
            "whisper_attachments_total",
            help: "Attachment URLs signed (presigned, download) and objects the GC deleted or failed to delete.",
            labelNames: ["event"])

        buildInfo = registry.gauge(
            "whisper_build_info", help: "Always 1; the labels say which build this process runs.",
            labelNames: ["version", "commit", "build_date"]).labels([build.version, build.commit, build.date])
        buildInfo.set(1)

        // Series with a known, closed label set exist from the start.
        for event in ["presigned", "download", "deleted", "delete_failed"] { _ = attachments.labels(event) }
        _ = connectionsRefused.labels("per_ip")
        _ = connectionsRefused.labels("per_ip_rate")
        _ = pushOAuthFailures.labels("fcm")
        _ = messagesDelivered.labels("live")
        _ = messagesDelivered.labels("pending")
        for action in RateLimitAction.allCases { _ = rateLimited.labels(action.rawValue) }

        if includeProcessMetrics { registry.register(collector: ProcessMetrics()) }
    }
}
