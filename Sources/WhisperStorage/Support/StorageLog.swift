/// Severity of a storage log line. The Ops module maps it onto its JSON logger; storage
/// stays independent of that module's API.
public enum StorageLogLevel: String, Sendable {
    case debug, info, warning, error
}

/// Where storage writes its log lines: `(level, message)`. Called from event-loop threads
/// (Redis) and from PostgreSQL worker threads, hence `@Sendable`. Messages never contain
/// passwords, query parameters or values.
public typealias StorageLog = @Sendable (StorageLogLevel, String) -> Void
