/// The actions that are rate limited (docs/operations.md "Rate limits"; docs/operations.md "Configuration"). `rawValue` is the metric label
/// (`whisper_rate_limited_total{action}`) and the Redis key part (`ratelimit:{key}:{action}`).
public enum RateLimitAction: String, Sendable, CaseIterable, Hashable {
    /// `register_begin` (the proof does not count).
    case register
    /// `send_message`, including group sends (one hit per send, not per recipient).
    case send
    /// `fetch_pending`.
    case fetch
    /// `update_tokens` (push tokens).
    case tokens
    /// Group create/update/membership operations.
    case group
    /// Call signalling (initiate, answer, ICE, end) and TURN credential requests.
    case call
    /// Typing indicators (on top of the spec's 1 per 2 s per peer).
    case typing
    /// `POST /reports`.
    case report
    /// Attachment presign (upload and download URLs).
    case presign
    /// Contacts backup upload and download.
    case backup

    /// The `<ACTION>` part of `WHISPER_RATE_<ACTION>`.
    public var environmentName: String { rawValue.uppercased() }
}

/// Whom a rate limit counts against.
public enum RateLimitScope: String, Sendable, CaseIterable, Hashable {
    /// Per authenticated (or claimed, for register) whisperId: `WHISPER_RATE_<ACTION>`.
    case identity
    /// Per client IP address: `WHISPER_RATE_<ACTION>_IP`.
    case ip

    /// The environment variable that sets this action's limit in this scope.
    public func variable(for action: RateLimitAction) -> String {
        switch self {
        case .identity: "WHISPER_RATE_\(action.environmentName)"
        case .ip: "WHISPER_RATE_\(action.environmentName)_IP"
        }
    }
}
