/// Log severity, ordered. `WHISPER_LOG_LEVEL` takes the names (case-insensitive; `warning` is
/// accepted for `warn`).
public enum LogLevel: Int, Sendable, CaseIterable, Comparable {
    case debug = 0
    case info = 1
    case warn = 2
    case error = 3

    /// The name written in the `level` field.
    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warn: "warn"
        case .error: "error"
        }
    }

    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warn", "warning": self = .warn
        case "error": self = .error
        default: return nil
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
