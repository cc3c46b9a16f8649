import WhisperOps

/// How the pool connects. `url` is a libpq connection URI or key=value string; the other
/// fields are defaults the URL may override (they are placed before it in the libpq
/// keyword list, and libpq lets later entries win).
public struct PostgresConfiguration: Sendable {
    public var url: String
    /// Worker threads, each holding one connection (transactions, tools; single statements
    /// from a loop use the loop's own sessions unless `sessionsPerLoop` is 0).
    public var poolSize: Int
    /// libpq `connect_timeout`, seconds (libpq treats values below 2 as 2).
    public var connectTimeoutSeconds: Int
    /// `statement_timeout` set on every new session, so a stuck statement cannot pin a
    /// worker for ever. 0 disables it.
    public var statementTimeoutMillis: Int
    /// A job that waited longer than this in the queue fails with `.timeout` unrun.
    public var queueTimeoutMillis: Int
    /// Jobs beyond this many waiting fail at once with `.overloaded` (no unbounded queue).
    public var maxQueuedJobs: Int
    /// Reconnect backoff per worker while the server is unreachable.
    public var reconnectInitialMillis: Int
    public var reconnectMaximumMillis: Int
    /// Single statements issued on an event loop run on that loop's own pipelined sessions
    /// (`PostgresPipeline`), each statement on the least busy one; 0 sends them to the workers
    /// like transactions. A session runs its statements one after another and each commits on
    /// its own, so with PostgreSQL's fsync on, one session per loop would queue every commit
    /// behind the last one's WAL flush; two let the commits of one loop overlap (docs/benchmarks.md
    /// "2026-11-26"). A second session connects only once the first is busy.
    public var sessionsPerLoop: Int

    public init(
        url: String,
        poolSize: Int = 4,
        connectTimeoutSeconds: Int = 3,
        statementTimeoutMillis: Int = 15_000,
        queueTimeoutMillis: Int = 15_000,
        maxQueuedJobs: Int = 10_000,
        reconnectInitialMillis: Int = 50,
        reconnectMaximumMillis: Int = 2_000,
        sessionsPerLoop: Int = 2
    ) {
        self.url = url
        self.poolSize = poolSize
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.statementTimeoutMillis = statementTimeoutMillis
        self.queueTimeoutMillis = queueTimeoutMillis
        self.maxQueuedJobs = maxQueuedJobs
        self.reconnectInitialMillis = reconnectInitialMillis
        self.reconnectMaximumMillis = reconnectMaximumMillis
        self.sessionsPerLoop = max(0, sessionsPerLoop)
    }

    /// libpq keywords and values, defaults first, then the URL expanded as `dbname`.
    /// TCP keepalives and `tcp_user_timeout` bound how long a blocked read or write can wait
    /// on a server that vanished without closing the socket (no FIN, e.g. a dead host).
    var connectionParameters: [(String, String)] {
        [
            ("connect_timeout", String(max(2, connectTimeoutSeconds))),
            ("keepalives", "1"),
            ("keepalives_idle", "10"),
            ("keepalives_interval", "5"),
            ("keepalives_count", "3"),
            ("tcp_user_timeout", "15000"),
            ("application_name", "whisper-relay"),
            ("dbname", url),
        ]
    }

    /// The URL with any password replaced, for log lines.
    var redactedURL: String { URLRedaction.redact(url) }
}
