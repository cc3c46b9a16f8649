/// Why sessions were killed, and what happens to sockets still holding them.
public enum RevocationReason: String, Sendable, CaseIterable {
    /// A newer `register_proof` for the identity (single active device): close 4001.
    case newLogin = "new_login"
    /// The identity was banned: close 4003.
    case banned
    /// `session_refresh` replaced the token: other sockets holding it forget it.
    case refreshed
    /// `logout`: other sockets holding the token forget it.
    case loggedOut = "logged_out"
    /// The identity deleted itself (`delete_account`): close 4004.
    case accountDeleted = "account_deleted"
    /// An operator logged the identity out everywhere (`POST /admin/users/{id}/sessions/revoke`),
    /// without a ban: close 4001, like any session revoked while the identity may log in again.
    case adminLogout = "admin_logout"

    /// The WebSocket close code for sockets holding a revoked session, or `nil` when the
    /// socket stays open and only becomes unauthenticated.
    public var closeCode: UInt16? {
        switch self {
        case .newLogin, .adminLogout: return 4001
        case .banned: return 4003
        case .accountDeleted: return 4004
        case .refreshed, .loggedOut: return nil
        }
    }

    /// The whole identity is shut out, not one session: every socket of it closes whatever
    /// session it holds, and what nodes cached about it as a recipient is stale.
    public var shutsOutIdentity: Bool {
        switch self {
        case .banned, .accountDeleted: return true
        case .newLogin, .refreshed, .loggedOut, .adminLogout: return false
        }
    }
}

/// The cross-node message that tells every node which sessions died (published on the
/// Redis channel `session-revocations` in the same Lua script that deletes them):
///
///     v1\n<reason>\n<whisperId>\n<origin node or ->\n<origin connection id>\n<hash hex>\n<hash hex>…
///
/// Every node closes (or un-authenticates) its sockets of `whisperId` whose cached session
/// hash is listed — except the origin socket, which caused the revocation and already
/// holds its new session. The scripts append the hashes to `header` themselves.
public struct RevocationNotice: Sendable, Equatable {
    public let reason: RevocationReason
    public let whisperId: String
    public let origin: ConnectionRef?
    public let hashes: [SessionHash]

    public init(reason: RevocationReason, whisperId: String, origin: ConnectionRef?, hashes: [SessionHash]) {
        self.reason = reason
        self.whisperId = whisperId
        self.origin = origin
        self.hashes = hashes
    }

    static let version = "v1"

    /// Everything before the hash lines (ends with a newline).
    public static func header(reason: RevocationReason, whisperId: String, origin: ConnectionRef?) -> String {
        let node = origin?.node ?? "-"
        let connection = origin.map { String($0.connection) } ?? "0"
        return "\(version)\n\(reason.rawValue)\n\(whisperId)\n\(node)\n\(connection)\n"
    }

    public func encoded() -> [UInt8] {
        Array((Self.header(reason: reason, whisperId: whisperId, origin: origin)
               + hashes.map(\.hex).joined(separator: "\n")).utf8)
    }

    /// Strict: anything malformed is dropped (`nil`) rather than half-applied.
    public static func decode(_ bytes: [UInt8]) -> RevocationNotice? {
        guard bytes.count <= 1 << 20 else { return nil }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard lines.count >= 5, lines[0] == version, let reason = RevocationReason(rawValue: lines[1]),
              !lines[2].isEmpty, let connection = UInt64(lines[4])
        else { return nil }
        var hashes: [SessionHash] = []
        for line in lines.dropFirst(5) where !line.isEmpty {
            guard let hash = SessionHash(hex: line) else { return nil }
            hashes.append(hash)
        }
        let origin = lines[3] == "-" ? nil : ConnectionRef(node: lines[3], connection: connection)
        return RevocationNotice(reason: reason, whisperId: lines[2], origin: origin, hashes: hashes)
    }
}
