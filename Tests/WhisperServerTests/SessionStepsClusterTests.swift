import Foundation
import Testing
import WhisperOps
import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage
import WhisperStores
import WhisperTesting

/// The session and challenge stores on the real 3-primary + 3-replica Redis Cluster that
/// scripts/test starts (`WHISPER_TEST_REDIS_CLUSTER_URL`): every step on one slot
/// (`SessionScripts`), sessions of one user in other slots than the user's index, the
/// revocation notice on a sharded channel, and a node that dies between two steps — shown
/// by running the first steps alone, then the state (the revoked session refused), then the
/// next operation on the user completing the announcement.
@Suite("Session steps on a real Redis Cluster") struct SessionStepsClusterTests {
    @Test func createReplaceDelete_sessionsSpreadOverSlots_noticesOnTheShardedChannel() async throws {
        let cluster = try await SessionCluster()
        defer { cluster.close() }
        let first = try await cluster.firstSession()
        let wid = first.whisperId
        let second = cluster.session(wid)
        #expect(RedisSlot.of(cluster.keys.session(first.hash)) != RedisSlot.of(cluster.keys.session(second.hash)))
        #expect(try await cluster.find(first) == first)
        #expect(try await cluster.create(second) == .created(revoked: [first.hash]))
        #expect(try await cluster.find(first) == nil)
        #expect(try await cluster.find(second) == second)
        #expect(try await cluster.exists(cluster.keys.session(first.hash)) == false)
        var notice = try #require(await cluster.nextNotice())
        #expect(notice.reason == .newLogin && notice.whisperId == wid.string && notice.hashes == [first.hash])
        #expect(notice.origin == cluster.origin)

        let third = cluster.session(wid)
        #expect(try await cluster.replace(second, with: third))
        #expect(try await cluster.find(second) == nil)
        #expect(try await cluster.find(third) == third)
        notice = try #require(await cluster.nextNotice())
        #expect(notice.reason == .refreshed && notice.hashes == [second.hash])
        // A refresh of a session that is gone stores nothing.
        let stray = cluster.session(wid)
        #expect(try await cluster.replace(second, with: stray) == false)
        #expect(try await cluster.exists(cluster.keys.session(stray.hash)) == false)

        #expect(try await cluster.delete(third))
        #expect(try await cluster.find(third) == nil)
        notice = try #require(await cluster.nextNotice())
        #expect(notice.reason == .loggedOut && notice.hashes == [third.hash])
        #expect(try await cluster.delete(third) == false)
        #expect(try await cluster.exists(cluster.keys.revoking(wid)) == false)
    }

    @Test func revokeAll_killsEverySession_andABanRacingALoginIsRefusedByTheUsersEpoch() async throws {
        let cluster = try await SessionCluster()
        defer { cluster.close() }
        let live = try await cluster.firstSession()
        let wid = live.whisperId

        // The racing login read the epoch before its identity check; the ban committed after
        // that check and its revocation ran before the login's session step.
        let epoch = try await cluster.epoch(wid)
        #expect(epoch == 0)
        #expect(try await cluster.revokeAll(wid, .banned) == [live.hash])
        let notice = try #require(await cluster.nextNotice())
        #expect(notice.reason == .banned && notice.hashes == [live.hash] && notice.origin == nil)
        #expect(try await cluster.find(live) == nil)
        #expect(try await cluster.epoch(wid) > epoch)

        let raced = cluster.session(wid)
        #expect(try await cluster.create(raced, epoch: epoch) == .refused(.banned))
        #expect(try await cluster.find(raced) == nil)
        #expect(try await cluster.exists(cluster.keys.session(raced.hash)) == false)
        #expect(try await cluster.command(["SCARD", cluster.keys.sessionIndex(wid)]).integer == 0)
        // A login that read the raised epoch (after an unban) is not refused; another
        // identity's epoch never moved.
        #expect(try await cluster.create(cluster.session(wid), epoch: cluster.epoch(wid)) == .created(revoked: []))
        #expect(try await cluster.epoch(WhisperID.random()) == 0)
        // A ban with no session left still announces (it closes every socket of the identity).
        #expect(try await cluster.revokeAll(wid, .banned).count == 1)
        #expect(try await cluster.revokeAll(wid, .accountDeleted).isEmpty)
        #expect(await cluster.nextNotice() != nil)
    }

    @Test func anOlderReleasesSessionsAndMarkers_keepWorking() async throws {
        let cluster = try await SessionCluster()
        defer { cluster.close() }
        let wid = WhisperID.random()
        let old = cluster.session(wid)
        // As the single scripts left them: the session, its index, a marker from the global epoch.
        let hset: [Any] = ["HSET", cluster.keys.session(old.hash)]
        try await cluster.command(hset + RedisSessionStore.fields(old))
        try await cluster.command(["SADD", cluster.keys.sessionIndex(wid), old.hash.hex])
        try await cluster.command(["HSET", cluster.keys.revoked(wid), "v", "7", "why", "banned"])
        #expect(try await cluster.find(old) == old)
        #expect(try await cluster.epoch(wid) == 7)
        #expect(try await cluster.create(cluster.session(wid), epoch: 6) == .refused(.banned))
        #expect(try await cluster.find(old) == old)
        #expect(try await cluster.revokeAll(wid, .banned) == [old.hash])
        #expect(try await cluster.epoch(wid) > 7)
    }

    @Test func nodeDiesAfterALoginsUserStep_theOldSessionIsRefused_andTheNextLoginAnnouncesIt() async throws {
        let cluster = try await SessionCluster()
        defer { cluster.close() }
        let first = try await cluster.firstSession()
        let wid = first.whisperId

        // Cut after the session's write: an orphan nobody can use.
        let orphan = cluster.session(wid)
        try await cluster.loop.result { done in cluster.store.write(orphan, ttlSeconds: 60, completion: done) }
        #expect(try await cluster.exists(cluster.keys.session(orphan.hash)))
        #expect(try await cluster.find(orphan) == nil)
        #expect(try await cluster.find(first) == first)

        // Cut after the user's step: the new session is live, the old one refused although
        // its key is still there, and it waits in `revoking:` for its announcement.
        let second = cluster.session(wid)
        let opened = try await cluster.loop.result { done in
            cluster.store.openOnly(second, ttlSeconds: 60, unlessRevokedAfter: 0, completion: done)
        }
        #expect(opened == .opened(taken: [first.hash], pending: [first.hash]))
        #expect(try await cluster.find(first) == nil)
        #expect(try await cluster.exists(cluster.keys.session(first.hash)))
        #expect(try await cluster.find(second) == second)

        // The client's retry (a new login): both old sessions announced and deleted.
        let third = cluster.session(wid)
        #expect(try await cluster.create(third) == .created(revoked: [second.hash]))
        let notice = try #require(await cluster.nextNotice())
        #expect(notice.reason == .newLogin && Set(notice.hashes) == [first.hash, second.hash])
        #expect(try await cluster.exists(cluster.keys.session(first.hash)) == false)
        #expect(try await cluster.exists(cluster.keys.revoking(wid)) == false)
        #expect(try await cluster.find(third) == third)
    }

    @Test func nodeDiesAfterABansUserStep_theSessionsAreRefused_andTheRepeatedBanAnnouncesThem() async throws {
        let cluster = try await SessionCluster()
        defer { cluster.close() }
        let live = try await cluster.firstSession()
        let wid = live.whisperId

        let first = try await cluster.loop.result { done in
            cluster.store.revokeAllOnly(wid, reason: .banned) { done($0.map { [$0.taken, $0.pending] }) }
        }
        #expect(first == [[live.hash], [live.hash]])
        #expect(try await cluster.find(live) == nil)
        #expect(try await cluster.create(cluster.session(wid), epoch: 0) == .refused(.banned))

        // The admin's retry of the ban completes it.
        #expect(try await cluster.revokeAll(wid, .banned).isEmpty)
        let notice = try #require(await cluster.nextNotice())
        #expect(notice.reason == .banned && notice.hashes == [live.hash])
        #expect(try await cluster.exists(cluster.keys.session(live.hash)) == false)
        #expect(try await cluster.exists(cluster.keys.revoking(wid)) == false)
    }

    @Test func challenge_chargedPerSubject_storedAndTakenOnce() async throws {
        let cluster = try await SessionCluster(registerLimit: RateLimit(count: 1, windowSeconds: 60))
        defer { cluster.close() }
        let wid = WhisperID.random()
        let subjects: [RateLimitSubject] = [.ip("192.0.2.9"), .identity(wid.string)]
        let (id, value) = (CanonicalUUID.random(), Array("challenge".utf8))
        #expect(try await cluster.loop.result { done in
            cluster.challenges.put(id, value: value, ttlSeconds: 60, rateLimit: cluster.limiter.charge(.register, subjects: subjects), completion: done)
        } == .allowed)
        #expect(try await cluster.loop.result { done in cluster.challenges.take(id, completion: done) } == value)
        #expect(try await cluster.loop.result { done in cluster.challenges.take(id, completion: done) } == nil)

        let refused = CanonicalUUID.random()
        let decision = try await cluster.loop.result { done in
            cluster.challenges.put(refused, value: value, ttlSeconds: 60, rateLimit: cluster.limiter.charge(.register, subjects: subjects), completion: done)
        }
        guard case .limited = decision else {
            Issue.record("the second challenge was not rate limited: \(decision)")
            return
        }
        #expect(try await cluster.exists(cluster.keys.challenge(refused)) == false)
    }
}

/// The session and challenge stores on `ClusterStores`.
private final class SessionCluster: @unchecked Sendable {
    let stores: ClusterStores
    let store: RedisSessionStore
    let challenges: RedisChallengeStore
    let limiter: RateLimiter
    let origin = ConnectionRef(node: "thisnode", connection: 7)
    /// The revocation notices, on the sharded channel every node subscribes.
    let inbox: ClusterInbox
    var loop: TestLoop { stores.loop }
    var keys: RedisKeys { stores.keys }

    init(registerLimit: RateLimit = RateLimit(count: 1_000, windowSeconds: 60)) async throws {
        stores = try await ClusterStores()
        inbox = try await stores.subscribe(stores.keys.revocationChannel)
        store = RedisSessionStore(redis: stores.redis, keys: stores.keys)
        challenges = RedisChallengeStore(redis: stores.redis, keys: stores.keys)
        var rateLimits = RateLimits.defaults
        rateLimits[.register, .identity] = registerLimit
        rateLimits[.register, .ip] = registerLimit
        limiter = RateLimiter(limits: rateLimits, store: RedisRateLimitStore(redis: stores.redis, keys: stores.keys))
    }

    func close() {
        inbox.close()
        stores.close()
    }

    @discardableResult
    func command(_ arguments: [Any]) async throws -> RedisValue { try await stores.command(arguments) }
    func exists(_ key: [UInt8]) async throws -> Bool { try await command(["EXISTS", key]).integer == 1 }

    /// A session of `wid` in a slot other than its user's.
    func session(_ wid: WhisperID) -> SessionRecord {
        while true {
            let token = SessionToken.generate(using: SodiumRandom())
            guard RedisSlot.of(keys.session(token.hash)) != RedisSlot.of(keys.sessionIndex(wid)) else { continue }
            return SessionRecord(hash: token.hash, whisperId: wid, deviceId: .random(), platform: .android,
                                 signPublicKey: [UInt8](repeating: 3, count: 32),
                                 expiresAtMillis: Int64(Date().timeIntervalSince1970 * 1000) + 60_000)
        }
    }

    func epoch(_ wid: WhisperID) async throws -> Int64 {
        try await loop.result { done in self.store.revocationEpoch(of: wid, completion: done) }
    }

    func create(_ session: SessionRecord, epoch: Int64 = 0) async throws -> ExclusiveSession {
        try await loop.result { done in
            self.store.createExclusive(session, ttlSeconds: 60, unlessRevokedAfter: epoch, origin: self.origin, completion: done)
        }
    }

    func find(_ session: SessionRecord) async throws -> SessionRecord? {
        try await loop.result { done in self.store.find(session.hash, completion: done) }
    }

    func replace(_ old: SessionRecord, with new: SessionRecord) async throws -> Bool {
        try await loop.result { done in self.store.replace(old, with: new, ttlSeconds: 60, origin: self.origin, completion: done) }
    }

    func delete(_ session: SessionRecord) async throws -> Bool {
        try await loop.result { done in self.store.delete(session, origin: self.origin, completion: done) }
    }

    func revokeAll(_ wid: WhisperID, _ reason: RevocationReason) async throws -> [SessionHash] {
        try await loop.result { done in self.store.revokeAll(of: wid, reason: reason, origin: nil, completion: done) }
    }

    /// A new identity's first session, created.
    func firstSession() async throws -> SessionRecord {
        let record = session(WhisperID.random())
        guard try await create(record) == .created(revoked: []) else { throw TestSocket.Failure.io("not created") }
        return record
    }

    /// The next revocation notice, taken out of the inbox.
    func nextNotice() async -> RevocationNotice? {
        guard let payload = await inbox.next() else { return nil }
        inbox.drop(payload)
        return RevocationNotice.decode(payload)
    }
}
