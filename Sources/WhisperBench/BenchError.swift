import WhisperRuntime

/// Why a scenario could not run at all (as opposed to running and finding errors).
public enum BenchError: Error, Sendable, CustomStringConvertible {
    /// RLIMIT_NOFILE cannot cover the connections asked for.
    case fileLimit(needed: Int, soft: Int, hard: Int)
    case invalidOption(String)
    case system(SystemError)
    /// A phase that must succeed did not (e.g. the drain recipient could not log in).
    case setup(String)

    public var description: String {
        switch self {
        case let .fileLimit(needed, soft, hard):
            return "need \(needed) file descriptors but RLIMIT_NOFILE is \(soft) (hard \(hard)) and cannot be raised: "
                + "run `ulimit -n \(needed)` (as root, or raise the hard limit in limits.conf / systemd LimitNOFILE=) "
                + "or ask for fewer connections"
        case .invalidOption(let text): return text
        case .system(let error): return error.description
        case .setup(let text): return text
        }
    }
}
