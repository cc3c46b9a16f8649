import WhisperOps
import WhisperProtocol
import WhisperServices

/// Every Redis key and channel the server uses, under the configured prefix
/// (`WHISPER_REDIS_PREFIX`, default `whisper:`). docs/operations.md lists them.
struct RedisKeys: Sendable {
    let prefix: String

    /// `challenge:{challengeId}` → challenge bytes + the deviceId/whisperId they were issued
    /// for; TTL = `WHISPER_CHALLENGE_TTL_SECONDS`.
    func challenge(_ id: CanonicalUUID) -> [UInt8] { bytes("challenge:" + id.string) }

    /// `session:{sha256(token) hex}` → hash {wid, did, plat, exp}; TTL = session lifetime.
    var sessionPrefix: String { prefix + "session:" }
    func session(_ hash: SessionHash) -> [UInt8] { Array((sessionPrefix + hash.hex).utf8) }

    /// `sessions:{whisperId}` → set of session hashes of the identity (for revocation).
    var sessionIndexPrefix: String { prefix + "sessions:" }
    func sessionIndex(_ whisperId: WhisperID) -> [UInt8] { Array((sessionIndexPrefix + whisperId.string).utf8) }

    /// `ratelimit:{subject}:{action}` → sorted set of recent hits (spec §12.2).
    func rateLimit(subject: String, action: RateLimitAction) -> [UInt8] {
        bytes("ratelimit:" + subject + ":" + action.rawValue)
    }

    /// Pub/sub channel of `RevocationNotice`s, listened to by every node.
    var revocationChannel: [UInt8] { bytes("session-revocations") }

    private func bytes(_ suffix: String) -> [UInt8] { Array((prefix + suffix).utf8) }
}
