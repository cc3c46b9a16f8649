import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// `AuthService` over in-memory stores: the order of checks and the decisions the
/// integration tests cannot force (Whisper ID collisions, store failures).
@Suite struct AuthServiceTests {
    init() throws { try Sodium.initialize() }

    @Test func newLogin_mintsAValidID_recordsTheDevice_andStoresOnlyTheTokenHash() throws {
        let harness = AuthHarness()
        let login = try harness.login(key: TestKey(seed: 1)).get()
        let record = login.session.record
        #expect(login.isNewIdentity)
        #expect(WhisperID.isValid(record.whisperId.string))
        #expect(record.hash == login.session.token.hash)
        #expect(record.hash.bytes == Sodium.sha256(login.session.token.bytes))
        #expect(record.expiresAtMillis == AuthHarness.now + 604_800_000)
        #expect(harness.sessions.records.keys.contains(record.hash))
        #expect(harness.identities.logins.map(\.whisperId) == [record.whisperId])
    }

    @Test func fixtureProof_isAccepted_exactlyAsTheRepoVectorSaysIt() throws {
        let vector = try Fixture.registration()
        let harness = AuthHarness()
        let id = CanonicalUUID.random(), device = CanonicalUUID.random()
        harness.challenges.values[id] = PendingChallenge(challenge: vector.message, deviceId: device, whisperId: nil).encoded()
        let proof = RegisterProofPayload(challengeId: id, deviceId: device, platform: .ios, whisperId: nil,
                                         encPublicKey: [UInt8](repeating: 0x40, count: 32), signPublicKey: vector.publicKey,
                                         signature: vector.signature)
        #expect(throws: Never.self) { try harness.prove(proof).get() }
        #expect(harness.metrics.ed25519Verify.count == 1)
    }

    @Test func takenIDs_areRetried_untilAFreeOne() throws {
        let harness = AuthHarness()
        harness.identities.collisions = 3
        let login = try harness.login(key: TestKey(seed: 2)).get()
        let candidates = harness.identities.candidates
        #expect(candidates.count == 4)
        #expect(Set(candidates).count == 4, "each attempt mints a fresh id")
        #expect(candidates.allSatisfy { WhisperID.isValid($0.string) })
        #expect(login.session.record.whisperId == candidates.last)
    }

    @Test func givingUpAfterMaxMintAttempts_isAnInternalError() {
        let harness = AuthHarness(maxMintAttempts: 2)
        harness.identities.collisions = 5
        guard case .failure(let error) = harness.login(key: TestKey(seed: 3)) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .internalError)
        #expect(harness.identities.candidates.count == 2)
        #expect(harness.sessions.records.isEmpty)
    }

    @Test func recovery_withMatchingKeys_keepsTheID_andRevokesTheOtherSessions() throws {
        let harness = AuthHarness()
        let key = TestKey(seed: 4)
        let first = try harness.login(key: key).get()
        let id = first.session.record.whisperId
        let second = try harness.login(key: key, whisperId: id).get()
        #expect(!second.isNewIdentity)
        #expect(second.session.record.whisperId == id)
        #expect(second.revokedSessions == 1)
        #expect(harness.sessions.records[first.session.record.hash] == nil)
        #expect(harness.sessions.notices.last?.origin == harness.client.connection)
    }

    @Test func keyMismatch_isCheckedBeforeTheBan_soABanDoesNotLeakToStrangers() throws {
        let harness = AuthHarness()
        let owner = TestKey(seed: 5)
        let id = try harness.login(key: owner).get().session.record.whisperId
        let stored = try #require(harness.identities.users[id])
        harness.identities.users[id] = StoredIdentity(keys: stored.keys, isBanned: true)
        #expect(harness.login(key: TestKey(seed: 6), whisperId: id).failure == .authFailed(.keyMismatch))
        #expect(harness.login(key: owner, whisperId: id).failure == .banned)
        // Same signing key, other encryption key: both keys must match.
        harness.identities.users[id] = StoredIdentity(keys: stored.keys, isBanned: false)
        #expect(harness.login(key: owner, whisperId: id, encKey: [UInt8](repeating: 1, count: 32)).failure
                    == .authFailed(.keyMismatch))
    }

    @Test func unknownID_andKeyMismatch_sendTheSameMessage() throws {
        let harness = AuthHarness()
        let unknown = harness.login(key: TestKey(seed: 7), whisperId: WhisperID.random()).failure
        #expect(unknown == .authFailed(.unknownIdentity))
        #expect(unknown?.message == ServiceError.authFailed(.keyMismatch).message)
        #expect(unknown?.code == .authFailed)
    }

    @Test func challenge_isSpentByAFailedProof_andBoundToTheBeginsDeviceAndID() throws {
        let harness = AuthHarness()
        let key = TestKey(seed: 8)
        let device = CanonicalUUID.random()
        let challenge = try harness.begin(RegisterBeginPayload(whisperId: nil, deviceId: device, platform: .ios)).get()
        var bad = harness.proof(for: challenge, key: key, deviceId: device, whisperId: nil)
        bad.signature[0] ^= 1
        #expect(harness.prove(bad).failure == .authFailed(.badSignature))
        let good = harness.proof(for: challenge, key: key, deviceId: device, whisperId: nil)
        #expect(harness.prove(good).failure == .authFailed(.challengeUnknown))

        let second = try harness.begin(RegisterBeginPayload(whisperId: nil, deviceId: device, platform: .ios)).get()
        #expect(harness.prove(harness.proof(for: second, key: key, deviceId: .random(), whisperId: nil)).failure
                    == .authFailed(.challengeMismatch))
        let third = try harness.begin(RegisterBeginPayload(whisperId: nil, deviceId: device, platform: .ios)).get()
        #expect(harness.prove(harness.proof(for: third, key: key, deviceId: device, whisperId: WhisperID.random())).failure
                    == .authFailed(.challengeMismatch))
    }

    @Test func begin_chargesTheIP_andTheClaimedID_andIssues32RandomBytes() throws {
        let harness = AuthHarness()
        let id = WhisperID.random()
        let challenge = try harness.begin(RegisterBeginPayload(whisperId: id, deviceId: .random(), platform: .android)).get()
        #expect(challenge.challenge.count == 32)
        #expect(challenge.expiresAtMillis == AuthHarness.now + 60_000)
        let buckets = try #require(harness.challenges.charged.last)
        #expect(buckets.map(\.subject) == ["ip:192.0.2.7", "id:" + id.string])
        #expect(buckets.allSatisfy { $0.action == .register })
        #expect(buckets.map(\.limit) == [RateLimits.defaults[.register, .ip], RateLimits.defaults[.register, .identity]])
        _ = try harness.begin(RegisterBeginPayload(whisperId: nil, deviceId: .random(), platform: .ios)).get()
        #expect(harness.challenges.charged.last?.map(\.subject) == ["ip:192.0.2.7"])
    }

    @Test func rateLimited_begin_issuesNoChallenge_andIsCounted() {
        let harness = AuthHarness()
        harness.challenges.decision = .limited(retryAfterMs: 1234)
        let result = harness.begin(RegisterBeginPayload(whisperId: nil, deviceId: .random(), platform: .ios))
        #expect(result.failure == .rateLimited(retryAfterMs: 1234))
        #expect(result.failure?.retryAfterMs == 1234)
        #expect(harness.challenges.values.isEmpty)
        #expect(harness.metrics.rateLimited.labels("register").value == 1)
    }

    @Test func storeFailure_isAnInternalError() {
        let harness = AuthHarness()
        let key = TestKey(seed: 9)
        harness.identities.failure = .unavailable("down")
        let result = harness.login(key: key, whisperId: WhisperID.random())
        #expect(result.failure == .storage(.unavailable("down")))
        #expect(result.failure?.code == .internalError)
        #expect(result.failure?.message == "internal error")
    }

    @Test func refresh_replacesTheToken_andLogout_killsIt() throws {
        let harness = AuthHarness()
        let login = try harness.login(key: TestKey(seed: 10)).get()
        var refreshed: Result<IssuedSession, ServiceError>?
        harness.service.refresh(login.session.record, client: harness.client) { refreshed = $0 }
        let issued = try #require(refreshed).get()
        #expect(issued.record.whisperId == login.session.record.whisperId)
        #expect(harness.sessions.records[login.session.record.hash] == nil)
        var again: Result<IssuedSession, ServiceError>?
        harness.service.refresh(login.session.record, client: harness.client) { again = $0 }
        #expect(again?.failure == .notRegistered)

        var found: Result<SessionRecord, ServiceError>?
        harness.service.authenticate(issued.token.hash) { found = $0 }
        #expect(try found?.get() == issued.record)
        harness.service.logout(issued.record, client: harness.client) { _ in }
        harness.service.authenticate(issued.token.hash) { found = $0 }
        #expect(found?.failure == .notRegistered)
    }

    // MARK: Seed-only login (contract §15)

    @Test func seedOnlyLogin_withKnownKeys_logsIntoThatIdentity_andRevokesItsOtherSession() throws {
        let harness = AuthHarness()
        let key = TestKey(seed: 11)
        let first = try harness.login(key: key).get()
        let again = try harness.login(key: key, deviceId: .random()).get()
        #expect(!again.isNewIdentity)
        #expect(again.session.record.whisperId == first.session.record.whisperId)
        #expect(again.revokedSessions == 1)
        #expect(harness.identities.users.count == 1, "no second identity minted for the same keys")
        #expect(harness.identities.logins.map(\.whisperId) == [first.session.record.whisperId, first.session.record.whisperId])
    }

    @Test func seedOnlyLogin_withAKnownSigningKeyAndAnotherEncryptionKey_isAuthFailed() throws {
        let harness = AuthHarness()
        let key = TestKey(seed: 12)
        _ = try harness.login(key: key).get()
        #expect(harness.login(key: key, encKey: [UInt8](repeating: 1, count: 32)).failure == .authFailed(.keyMismatch))
        #expect(harness.identities.users.count == 1)
    }

    @Test func seedOnlyLogin_ofABannedIdentity_isUserBanned() throws {
        let harness = AuthHarness()
        let key = TestKey(seed: 13)
        let id = try harness.login(key: key).get().session.record.whisperId
        let stored = try #require(harness.identities.users[id])
        harness.identities.users[id] = StoredIdentity(keys: stored.keys, isBanned: true)
        #expect(harness.login(key: key).failure == .banned)
    }

    @Test func seedOnlyLogin_readsItsIdentitysEpochBeforeTheCheck_soOnlyARevocationSinceRefusesIt() throws {
        let harness = AuthHarness()
        let key = TestKey(seed: 15)
        let id = try harness.login(key: key).get().session.record.whisperId
        #expect(harness.sessions.epochReads.count == 1)  // the new identity's, before its insert
        // A revocation before the login (banned and lifted since) does not refuse it.
        harness.sessions.revokeAll(of: id, reason: .banned, origin: nil) { _ in }
        #expect((try? harness.login(key: key).get()) != nil)
        #expect(harness.sessions.epochReads.last == id)
        // A ban whose revocation runs after the epoch read, during the identity check: refused.
        harness.identities.beforeRecover = { harness.sessions.revokeAll(of: id, reason: .banned, origin: nil) { _ in } }
        #expect(harness.login(key: key).failure == .banned)
    }

    @Test func seedOnlyRegistration_losingTheRaceForItsKeys_logsIntoTheWinner() throws {
        let harness = AuthHarness()
        let key = TestKey(seed: 14)
        let winner = WhisperID.random()
        let keys = IdentityKeys(encPublicKey: [UInt8](repeating: 9, count: 32), signPublicKey: key.publicKey)
        // Another registration of the same keys commits between this one's look-up and insert.
        harness.identities.beforeCreate = { harness.identities.users[winner] = StoredIdentity(keys: keys, isBanned: false) }
        let login = try harness.login(key: key).get()
        #expect(login.session.record.whisperId == winner)
        #expect(!login.isNewIdentity)
        #expect(harness.identities.candidates.count == 1)
        #expect(harness.identities.users.count == 1)
    }

    @Test func expiredSession_isNotRegistered() throws {
        let harness = AuthHarness()
        let token = SessionToken.generate(using: SeededRandom(seed: 1))
        let record = SessionRecord(hash: token.hash, whisperId: WhisperID.random(), deviceId: .random(), platform: .ios,
                                   signPublicKey: [UInt8](repeating: 7, count: 32), expiresAtMillis: AuthHarness.now)
        harness.sessions.records[record.hash] = record
        var found: Result<SessionRecord, ServiceError>?
        harness.service.authenticate(record.hash) { found = $0 }
        #expect(found?.failure == .notRegistered)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
