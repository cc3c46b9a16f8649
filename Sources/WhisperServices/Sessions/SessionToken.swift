import WhisperProtocol

/// A session token (docs/protocol.md "Identity and sessions"): 32 random bytes, handed to the client once as standard
/// padded base64 (docs/protocol.md "Encodings"; 44 characters, also a valid RFC 6750 bearer token). The
/// server keeps only `hash` (SHA-256 of the raw bytes), so a Redis dump or a log of keys
/// cannot be replayed as a live session.
public struct SessionToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public static let byteCount = 32

    /// The secret. Never log it, never store it.
    public let bytes: [UInt8]

    public static func generate(using random: RandomSource) -> SessionToken {
        SessionToken(validated: random.bytes(byteCount))
    }

    /// A presented token: exactly 32 bytes of canonical base64, else `nil` (not a session).
    public init?(text: String) {
        self.init(base64: Array(text.utf8)[...])
    }

    /// The same from the text's bytes (a frame's, with no `String` made).
    public init?(base64 text: ArraySlice<UInt8>) {
        guard text.count == Base64.encodedLength(forByteCount: Self.byteCount),
              let bytes = Base64.decode(text), bytes.count == Self.byteCount
        else { return nil }
        self.bytes = bytes
    }

    init(validated bytes: [UInt8]) { self.bytes = bytes }

    /// What the client gets in `register_ack` / `session_refreshed`.
    public var text: String { Base64.encode(bytes) }

    public var hash: SessionHash { SessionHash(validated: Sodium.sha256(bytes)) }

    /// Printing, dumping or reflecting a token never shows the secret.
    public var description: String { "SessionToken(…)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// SHA-256 of a session token: what Redis keys and socket caches hold.
public struct SessionHash: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    init(validated bytes: [UInt8]) { self.bytes = bytes }

    /// From 64 hex digits (a Redis key part or a revocation notice line).
    public init?(hex: String) {
        guard hex.utf8.count == 2 * Sodium.sha256Bytes, let bytes = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    public var hex: String { Hex.encode(bytes) }

    /// Constant-time comparison (`sodium_memcmp`): for checking a presented token against
    /// a socket's cached session, where timing must not reveal how many bytes matched.
    public func constantTimeEquals(_ other: SessionHash) -> Bool {
        Sodium.constantTimeEqual(bytes, other.bytes)
    }

    /// Deliberately not the hash itself: descriptions end up in logs.
    public var description: String { "SessionHash(…)" }
}
