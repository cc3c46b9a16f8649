/// Every rate limit, per action and scope. Production defaults:
///
/// | action     | per whisperId (`WHISPER_RATE_X`) | per IP (`WHISPER_RATE_X_IP`) | why |
/// |------------|------------|-------------|-----|
/// | `REGISTER` | 10/300     | 60/300      | login is rare; IPs are shared by carrier NAT |
/// | `SEND`     | 100/10     | 1000/10     | bursts of forwarded media, ~10/s sustained |
/// | `FETCH`    | 60/60      | 600/60      | paging after reconnect, 200 messages a page |
/// | `TOKENS`   | 10/60      | 100/60      | push tokens change rarely |
/// | `GROUP`    | 30/60      | 300/60      | group admin is human-paced |
/// | `CALL`     | 300/60     | 3000/60     | trickle ICE sends dozens of frames per call |
/// | `TYPING`   | 60/60      | 600/60      | also capped at 1 per 2 s per peer by the service |
/// | `REPORT`   | 10/3600    | 50/3600     | abuse reports are rare |
/// | `PRESIGN`  | 60/60      | 600/60      | one per attachment, up- and download |
/// | `BACKUP`   | 30/3600    | 100/3600    | contacts backup on change and on restore |
///
/// A limit `"N/S"` admits at most N hits in any S-second window (burst = N).
public struct RateLimits: Sendable, Equatable {
    private var identityLimits: [RateLimitAction: RateLimit]
    private var ipLimits: [RateLimitAction: RateLimit]

    /// The production defaults of the table above.
    public static let defaults = RateLimits(
        identity: [
            .register: RateLimit(count: 10, windowSeconds: 300),
            .send: RateLimit(count: 100, windowSeconds: 10),
            .fetch: RateLimit(count: 60, windowSeconds: 60),
            .tokens: RateLimit(count: 10, windowSeconds: 60),
            .group: RateLimit(count: 30, windowSeconds: 60),
            .call: RateLimit(count: 300, windowSeconds: 60),
            .typing: RateLimit(count: 60, windowSeconds: 60),
            .report: RateLimit(count: 10, windowSeconds: 3600),
            .presign: RateLimit(count: 60, windowSeconds: 60),
            .backup: RateLimit(count: 30, windowSeconds: 3600),
        ],
        ip: [
            .register: RateLimit(count: 60, windowSeconds: 300),
            .send: RateLimit(count: 1000, windowSeconds: 10),
            .fetch: RateLimit(count: 600, windowSeconds: 60),
            .tokens: RateLimit(count: 100, windowSeconds: 60),
            .group: RateLimit(count: 300, windowSeconds: 60),
            .call: RateLimit(count: 3000, windowSeconds: 60),
            .typing: RateLimit(count: 600, windowSeconds: 60),
            .report: RateLimit(count: 50, windowSeconds: 3600),
            .presign: RateLimit(count: 600, windowSeconds: 60),
            .backup: RateLimit(count: 100, windowSeconds: 3600),
        ])

    private init(identity: [RateLimitAction: RateLimit], ip: [RateLimitAction: RateLimit]) {
        identityLimits = identity
        ipLimits = ip
    }

    /// The limit for `action` counted per `scope`.
    public subscript(action: RateLimitAction, scope: RateLimitScope) -> RateLimit {
        get {
            let table = scope == .identity ? identityLimits : ipLimits
            // Every action is in both tables (built from `defaults`); the fallback is unreachable.
            return table[action] ?? RateLimit(count: 1, windowSeconds: 1)
        }
        set {
            switch scope {
            case .identity: identityLimits[action] = newValue
            case .ip: ipLimits[action] = newValue
            }
        }
    }

    /// Applies `WHISPER_RATE_<ACTION>[_IP]` over the defaults. Any other `WHISPER_RATE_*` name
    /// is an error, so a typo cannot silently leave a limit at its default.
    static func load(from environment: EnvironmentReader) throws(ConfigError) -> RateLimits {
        var limits = RateLimits.defaults
        var known: Set<String> = []
        for action in RateLimitAction.allCases {
            for scope in RateLimitScope.allCases {
                let variable = scope.variable(for: action)
                known.insert(variable)
                guard let text = environment.trimmed(variable) else { continue }
                guard let limit = RateLimit.parse(text) else {
                    throw ConfigError.invalid(
                        variable, expected: "<count>/<seconds> with both positive integers", got: text)
                }
                limits[action, scope] = limit
            }
        }
        for name in environment.names(withPrefix: "WHISPER_RATE_") where !known.contains(name) {
            let actions = RateLimitAction.allCases.map(\.environmentName).joined(separator: ", ")
            throw ConfigError.unknownVariable(
                variable: name, hint: "rate-limit actions are \(actions), each optionally with _IP")
        }
        return limits
    }
}
