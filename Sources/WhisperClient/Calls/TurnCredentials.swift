/// `turn_credentials` (docs/protocol.md "TURN credentials"): the TURN REST scheme's short-lived
/// user name and password, valid for every URL, to hand to the WebRTC stack as its ICE servers.
public struct TurnCredentials: Equatable, Sendable {
    /// `turn:`/`turns:`/`stun:` URLs.
    public let urls: [String]
    /// `"<Unix expiry seconds>:<whisperId>"`.
    public let username: String
    public let credential: String
    public let ttlSeconds: Int64
}
