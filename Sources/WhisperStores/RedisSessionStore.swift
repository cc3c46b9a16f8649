import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Sessions in Redis: `session:{sha256(token) hex}` → hash {wid, did, plat, exp, spk} with the
/// session TTL, and the index `sessions:{wid}` → set of hashes. The token itself is never
/// stored. Mutations run as Lua scripts (`SessionScripts`) that also publish the
/// `RevocationNotice` for every node.
package final class RedisSessionStore: SessionStore {
    private let redis: RedisClient
    private let keys: RedisKeys

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    /// How long `revoked:{wid}` outlives its revocation: far longer than a login takes from
    /// its challenge to its session (seconds), short enough that the markers do not pile up.
    package static let revokedMarkerTTLSeconds: Int64 = 86_400

    package func createExclusive(_ session: SessionRecord, ttlSeconds: Int64, unlessRevokedAfter epoch: Int64,
                                 origin: ConnectionRef, completion: @escaping StoreCompletion<ExclusiveSession>) {
        let header = RevocationNotice.header(reason: .newLogin, whisperId: session.whisperId.string, origin: origin)
        let call = RedisScriptCall(SessionScripts.createExclusive, keys: { (name: SessionScripts.CreateKey) in
            switch name {
            case .index: keys.sessionIndex(session.whisperId)
            case .session: keys.session(session.hash)
            case .revoked: keys.revoked(session.whisperId)
            }
        }, arguments: { (name: SessionScripts.CreateArgument) in
            switch name {
            case .sessionPrefix: Array(keys.sessionPrefix.utf8)
            case .hash: Array(session.hash.hex.utf8)
            case .ttl: Self.text(ttlSeconds)
            case .channel: keys.revocationChannel
            case .header: Array(header.utf8)
            case .epoch: Self.text(epoch)
            }
        }, moreArguments: Self.fields(session))
        redis.evalScript(call) { result in
            switch RedisReplies.value(result) {
            case .success(.bulk(let reason?)):
                guard let reason = RevocationReason(rawValue: String(decoding: reason, as: UTF8.self)) else {
                    return completion(.failure(RedisReplies.unexpected(.bulk(reason))))
                }
                completion(.success(.refused(reason)))
            case let other:
                completion(Self.hashes(other).map { .created(revoked: $0) })
            }
        }
    }

    package func find(_ hash: SessionHash, completion: @escaping StoreCompletion<SessionRecord?>) {
        redis.send([Array("HMGET".utf8), keys.session(hash)] + ["wid", "did", "plat", "exp", "spk"].map { Array($0.utf8) }) { result in
            switch RedisReplies.value(result) {
            case .success(.array(let values?)) where values.count == 5:
                completion(.success(Self.record(hash, values.map(\.string))))
            case .success(let other):
                completion(.failure(RedisReplies.unexpected(other)))
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    package func replace(_ old: SessionRecord, with new: SessionRecord, ttlSeconds: Int64, origin: ConnectionRef,
                         completion: @escaping StoreCompletion<Bool>) {
        let header = RevocationNotice.header(reason: .refreshed, whisperId: old.whisperId.string, origin: origin)
        let call = RedisScriptCall(SessionScripts.replace, keys: { (name: SessionScripts.ReplaceKey) in
            switch name {
            case .old: keys.session(old.hash)
            case .new: keys.session(new.hash)
            case .index: keys.sessionIndex(old.whisperId)
            }
        }, arguments: { (name: SessionScripts.ReplaceArgument) in
            switch name {
            case .oldHash: Array(old.hash.hex.utf8)
            case .newHash: Array(new.hash.hex.utf8)
            case .wid: Array(old.whisperId.string.utf8)
            case .ttl: Self.text(ttlSeconds)
            case .channel: keys.revocationChannel
            case .header: Array(header.utf8)
            }
        }, moreArguments: Self.fields(new))
        redis.evalScript(call) { completion(Self.flag(RedisReplies.value($0))) }
    }

    package func delete(_ session: SessionRecord, origin: ConnectionRef, completion: @escaping StoreCompletion<Bool>) {
        let header = RevocationNotice.header(reason: .loggedOut, whisperId: session.whisperId.string, origin: origin)
        let call = RedisScriptCall(SessionScripts.delete, keys: { (name: SessionScripts.DeleteKey) in
            switch name {
            case .session: keys.session(session.hash)
            case .index: keys.sessionIndex(session.whisperId)
            }
        }, arguments: { (name: SessionScripts.DeleteArgument) in
            switch name {
            case .hash: Array(session.hash.hex.utf8)
            case .wid: Array(session.whisperId.string.utf8)
            case .channel: keys.revocationChannel
            case .header: Array(header.utf8)
            }
        })
        redis.evalScript(call) { completion(Self.flag(RedisReplies.value($0))) }
    }

    package func revokeAll(of whisperId: WhisperID, reason: RevocationReason, origin: ConnectionRef?,
                           completion: @escaping StoreCompletion<[SessionHash]>) {
        let header = RevocationNotice.header(reason: reason, whisperId: whisperId.string, origin: origin)
        let call = RedisScriptCall(SessionScripts.revokeAll, keys: { (name: SessionScripts.RevokeAllKey) in
            switch name {
            case .index: keys.sessionIndex(whisperId)
            case .revoked: keys.revoked(whisperId)
            case .epoch: keys.revocationEpoch
            }
        }, arguments: { (name: SessionScripts.RevokeAllArgument) in
            switch name {
            case .sessionPrefix: Array(keys.sessionPrefix.utf8)
            case .channel: keys.revocationChannel
            case .header: Array(header.utf8)
            case .reason: Array(reason.rawValue.utf8)
            case .markerTTL: Self.text(Self.revokedMarkerTTLSeconds)
            }
        })
        redis.evalScript(call) { completion(Self.hashes(RedisReplies.value($0))) }
    }

    // MARK: Encoding

    package static func fields(_ session: SessionRecord) -> [[UInt8]] {
        [("wid", session.whisperId.string), ("did", session.deviceId.string), ("plat", session.platform.rawValue),
         ("exp", String(session.expiresAtMillis)), ("spk", Base64.encode(session.signPublicKey))].flatMap { [Array($0.0.utf8), Array($0.1.utf8)] }
    }

    package static func text(_ value: Int64) -> [UInt8] { Array(String(value).utf8) }

    /// A stored record, or `nil` when the key is missing or holds anything malformed.
    package static func record(_ hash: SessionHash, _ values: [String?]) -> SessionRecord? {
        guard values.count == 5, let wid = values[0].flatMap(WhisperID.validate),
              let did = values[1].flatMap(CanonicalUUID.init), let platform = values[2].flatMap(Platform.init),
              let expiresAt = values[3].flatMap({ Int64($0) }),
              let signKey = values[4].flatMap(Base64.decode), signKey.count == Sodium.ed25519PublicKeyBytes
        else { return nil }
        return SessionRecord(hash: hash, whisperId: wid, deviceId: did, platform: platform, signPublicKey: signKey,
                             expiresAtMillis: expiresAt)
    }

    package static func hashes(_ result: Result<RedisValue, StoreError>) -> Result<[SessionHash], StoreError> {
        result.flatMap { value in
            guard case .array(let items?) = value else { return .failure(RedisReplies.unexpected(value)) }
            return .success(items.compactMap { $0.string.flatMap(SessionHash.init(hex:)) })
        }
    }

    package static func flag(_ result: Result<RedisValue, StoreError>) -> Result<Bool, StoreError> {
        result.flatMap { value in
            guard case .integer(let n) = value else { return .failure(RedisReplies.unexpected(value)) }
            return .success(n == 1)
        }
    }
}
