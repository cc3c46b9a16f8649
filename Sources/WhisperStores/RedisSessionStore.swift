import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Sessions in Redis: `session:<sha256(token) hex>` → hash {wid, did, plat, exp, spk} with the
/// session TTL, live while its hash is in the index `sessions:{wid}`. The token itself is
/// never stored. Every change is a few steps of one hash slot each (`SessionScripts` says
/// why each cut between them is safe), the same on a standalone Redis and on a Redis
/// Cluster, and the `RevocationNotice` is published after the user's step.
///
/// Upgrading from the single scripts (which kept every live session in its index, and wrote
/// `revoked:{wid}` with a global `revocation-epoch`): sessions and markers keep working, no
/// one is logged out; `revocation-epoch` is no longer read. A login in flight while nodes of
/// both versions run is checked against the epoch its own node read: an old node's login
/// racing a new node's ban is refused (the new epochs, in ms, exceed every global one); a
/// new node's login racing an old node's ban of an identity revoked by a new node in the
/// last day may slip through the epoch check, and a login on an old node of an identity a
/// new node revoked in the last day is refused (`USER_BANNED`/`AUTH_FAILED`) until the day
/// is over or the upgrade is complete — bans issued during a rolling upgrade are best
/// repeated after it.
package final class RedisSessionStore: SessionStore {
    private let redis: RedisClient
    private let keys: RedisKeys

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    /// How long `revoked:{wid}` outlives its revocation: far longer than a login takes from
    /// its epoch read to its session (seconds), short enough that the markers do not pile up.
    package static let revokedMarkerTTLSeconds: Int64 = 86_400
    /// How long revocations cut off before their notice wait in `revoking:{wid}` for the
    /// user's next operation: as long as the sessions they name could live.
    package static let revokingTTLSeconds: Int64 = 30 * 86_400

    package func revocationEpoch(of whisperId: WhisperID, completion: @escaping StoreCompletion<Int64>) {
        redis.send([Array("HGET".utf8), keys.revoked(whisperId), Array("v".utf8)]) { result in
            completion(RedisReplies.value(result).flatMap { value in
                switch value {
                case .bulk(nil): .success(0)
                case .bulk(let text?): Int64(String(decoding: text, as: UTF8.self)).map { .success($0) }
                    ?? .failure(RedisReplies.unexpected(value))
                default: .failure(RedisReplies.unexpected(value))
                }
            })
        }
    }

    package func createExclusive(_ session: SessionRecord, ttlSeconds: Int64, unlessRevokedAfter epoch: Int64,
                                 origin: ConnectionRef, completion: @escaping StoreCompletion<ExclusiveSession>) {
        let header = RevocationNotice.header(reason: .newLogin, whisperId: session.whisperId.string, origin: origin)
        openOnly(session, ttlSeconds: ttlSeconds, unlessRevokedAfter: epoch) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(.refused(let reason)): completion(.success(.refused(reason)))
            case .success(.opened(let taken, let pending)):
                announce(session.whisperId, pending, header: header) { completion($0.map { .created(revoked: taken) }) }
            }
        }
    }

    /// What a login's steps up to the user's did.
    package enum Opened: Equatable, Sendable {
        /// Live, these hashes taken from the index, these (and older ones) to announce.
        case opened(taken: [SessionHash], pending: [SessionHash])
        case refused(RevocationReason)
    }

    /// A login's first steps: the session written, then the user's step; a refused session is
    /// deleted again. (Alone, what a node that died before the announcement did.)
    package func openOnly(_ session: SessionRecord, ttlSeconds: Int64, unlessRevokedAfter epoch: Int64,
                          completion: @escaping StoreCompletion<Opened>) {
        write(session, ttlSeconds: ttlSeconds) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            let call = RedisScriptCall(SessionScripts.open, keys: userKeys(session.whisperId), arguments: { (name: SessionScripts.OpenArgument) in
                switch name {
                case .hash: Array(session.hash.hex.utf8)
                case .ttl: Self.text(ttlSeconds)
                case .epoch: Self.text(epoch)
                case .revokingTTL: Self.text(Self.revokingTTLSeconds)
                }
            })
            redis.evalScript(call, retryOnce: true) { [self] result in
                switch RedisReplies.value(result) {
                case .failure(let error):
                    completion(.failure(error))
                case .success(.array(let items?)) where items.count == 3 && items[0].integer == 1:
                    completion(Self.hashes(.success(items[1])).flatMap { taken in
                        Self.hashes(.success(items[2])).map { .opened(taken: taken, pending: $0) }
                    })
                case .success(.array(let items?)) where items.count == 2 && items[0].integer == 0:
                    guard let reason = items[1].string.flatMap(RevocationReason.init(rawValue:)) else {
                        return completion(.failure(RedisReplies.unexpected(items[1])))
                    }
                    redis.send([Array("DEL".utf8), keys.session(session.hash)]) { result in
                        completion(RedisReplies.value(result).map { _ in .refused(reason) })
                    }
                case .success(let other):
                    completion(.failure(RedisReplies.unexpected(other)))
                }
            }
        }
    }

    package func find(_ hash: SessionHash, completion: @escaping StoreCompletion<SessionRecord?>) {
        redis.send([Array("HMGET".utf8), keys.session(hash)] + ["wid", "did", "plat", "exp", "spk"].map { Array($0.utf8) }) { [self] result in
            switch RedisReplies.value(result) {
            case .success(.array(let values?)) where values.count == 5:
                guard let record = Self.record(hash, values.map(\.string)) else { return completion(.success(nil)) }
                // Live only while in its user's index (a revocation cut off before its deletes).
                redis.send([Array("SISMEMBER".utf8), keys.sessionIndex(record.whisperId), Array(hash.hex.utf8)]) { result in
                    completion(RedisReplies.value(result).flatMap { value in
                        guard case .integer(let member) = value else { return .failure(RedisReplies.unexpected(value)) }
                        return .success(member == 1 ? record : nil)
                    })
                }
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
        write(new, ttlSeconds: ttlSeconds) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            let call = RedisScriptCall(SessionScripts.swap, keys: userKeys(old.whisperId), arguments: { (name: SessionScripts.SwapArgument) in
                switch name {
                case .oldHash: Array(old.hash.hex.utf8)
                case .newHash: Array(new.hash.hex.utf8)
                case .expires: Self.text(old.expiresAtMillis)
                case .ttl: Self.text(ttlSeconds)
                case .revokingTTL: Self.text(Self.revokingTTLSeconds)
                }
            })
            redis.evalScript(call, retryOnce: true) { [self] result in
                switch Self.flagged(RedisReplies.value(result)) {
                case .failure(let error):
                    completion(.failure(error))
                case .success((true, let pending)):
                    announce(old.whisperId, pending, header: header) { completion($0.map { true }) }
                case .success((false, _)):
                    // The old session was gone: the new one stays an orphan; delete it.
                    redis.send([Array("DEL".utf8), keys.session(new.hash)]) { completion(RedisReplies.value($0).map { _ in false }) }
                }
            }
        }
    }

    package func delete(_ session: SessionRecord, origin: ConnectionRef, completion: @escaping StoreCompletion<Bool>) {
        let header = RevocationNotice.header(reason: .loggedOut, whisperId: session.whisperId.string, origin: origin)
        let call = RedisScriptCall(SessionScripts.remove, keys: userKeys(session.whisperId), arguments: { (name: SessionScripts.RemoveArgument) in
            switch name {
            case .hash: Array(session.hash.hex.utf8)
            case .revokingTTL: Self.text(Self.revokingTTLSeconds)
            }
        })
        redis.evalScript(call, retryOnce: true) { [self] result in
            switch Self.flagged(RedisReplies.value(result)) {
            case .failure(let error):
                completion(.failure(error))
            case .success((let removed, let pending)):
                announce(session.whisperId, pending, header: header) { completion($0.map { removed }) }
            }
        }
    }

    package func revokeAll(of whisperId: WhisperID, reason: RevocationReason, origin: ConnectionRef?,
                           completion: @escaping StoreCompletion<[SessionHash]>) {
        let header = RevocationNotice.header(reason: reason, whisperId: whisperId.string, origin: origin)
        revokeAllOnly(whisperId, reason: reason) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success((let taken, let pending)):
                // Published even when nothing was stored: a ban closes every socket of the identity.
                announce(whisperId, pending, header: header, always: true) { completion($0.map { taken }) }
            }
        }
    }

    /// A ban's or deletion's user step alone (what a node that died before the announcement
    /// did): the hashes it took from the index, and every hash to announce.
    package func revokeAllOnly(_ whisperId: WhisperID, reason: RevocationReason,
                               completion: @escaping StoreCompletion<(taken: [SessionHash], pending: [SessionHash])>) {
        let call = RedisScriptCall(SessionScripts.revokeAll, keys: userKeys(whisperId), arguments: { (name: SessionScripts.RevokeAllArgument) in
            switch name {
            case .reason: Array(reason.rawValue.utf8)
            case .markerTTL: Self.text(Self.revokedMarkerTTLSeconds)
            case .revokingTTL: Self.text(Self.revokingTTLSeconds)
            }
        })
        redis.evalScript(call, retryOnce: true) { result in
            switch RedisReplies.value(result) {
            case .success(.array(let items?)) where items.count == 2:
                completion(Self.hashes(.success(items[0])).flatMap { taken in
                    Self.hashes(.success(items[1])).map { (taken, $0) }
                })
            case .success(let other): completion(.failure(RedisReplies.unexpected(other)))
            case .failure(let error): completion(.failure(error))
            }
        }
    }

    // MARK: Steps

    private func userKeys(_ whisperId: WhisperID) -> (SessionScripts.UserKey) -> [UInt8] {
        { [keys] name in
            switch name {
            case .index: keys.sessionIndex(whisperId)
            case .revoked: keys.revoked(whisperId)
            case .revoking: keys.revoking(whisperId)
            }
        }
    }

    /// A session's record in its own slot (not live until its user's step indexes it).
    package func write(_ session: SessionRecord, ttlSeconds: Int64, completion: @escaping StoreCompletion<Void>) {
        let call = RedisScriptCall(SessionScripts.write, keys: { (_: SessionScripts.WriteKey) in keys.session(session.hash) },
                                   arguments: { (_: SessionScripts.WriteArgument) in Self.text(ttlSeconds) },
                                   moreArguments: Self.fields(session))
        redis.evalScript(call, retryOnce: true) { completion(RedisReplies.value($0).map { _ in () }) }
    }

    /// The steps after the user's: each revoked session deleted in its own slot and the notice
    /// published, then — only when all of them succeeded — `revoking:{wid}` forgets them.
    private func announce(_ whisperId: WhisperID, _ pending: [SessionHash], header: String, always: Bool = false,
                          completion: @escaping StoreCompletion<Void>) {
        guard always || !pending.isEmpty else { return completion(.success(())) }
        var remaining = pending.count + 1
        var failure: StoreError?
        let settle: (StoreError?) -> Void = { [self] error in
            if failure == nil { failure = error }
            remaining -= 1
            guard remaining == 0 else { return }
            if let failure { return completion(.failure(failure)) }
            guard !pending.isEmpty else { return completion(.success(())) }
            redis.send([Array("SREM".utf8), keys.revoking(whisperId)] + pending.map { Array($0.hex.utf8) }) { result in
                completion(RedisReplies.value(result).map { _ in () })
            }
        }
        for hash in pending {
            redis.send([Array("DEL".utf8), keys.session(hash)]) { result in
                if case .failure(let error) = RedisReplies.value(result) { settle(error) } else { settle(nil) }
            }
        }
        let notice = Array((header + pending.map(\.hex).joined(separator: "\n")).utf8)
        redis.publish(keys.revocationChannel, notice) { result in
            if case .failure(let error) = result { settle(.unavailable(error.description)) } else { settle(nil) }
        }
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

    /// {1 or 0, hashes}.
    package static func flagged(_ result: Result<RedisValue, StoreError>) -> Result<(Bool, [SessionHash]), StoreError> {
        result.flatMap { value in
            guard case .array(let items?) = value, items.count == 2, let flag = items[0].integer
            else { return .failure(RedisReplies.unexpected(value)) }
            return hashes(.success(items[1])).map { (flag == 1, $0) }
        }
    }
}
