import Foundation
import Testing
import WhisperOps
import WhisperProtocol
import WhisperServices
import WhisperStorage
import WhisperStores
import WhisperTesting

/// Owed push wake-ups (docs/operations.md "Push") on a real standalone Redis and on the real
/// 3 + 3 Redis Cluster: a wake-up is owed from its claim until the provider took it, so one
/// lost with its node or given up is sent again by the sweep.
@Suite("Owed wake-ups on real Redis") struct OwedWakeUpTests {
    private static func claims(_ stores: ClusterStores) -> OnLoop<RedisWakeUpClaims> {
        OnLoop(RedisWakeUpClaims(redis: stores.redis, keys: stores.keys))
    }

    /// The user's entry's score (when it is due, ms of Redis's clock), or nil without an entry.
    private static func score(_ stores: ClusterStores, _ user: WhisperID) async throws -> Int64? {
        try await stores.command(["ZSCORE", stores.keys.pushOwed(bucket: RedisKeys.pushOwedBucket(of: user)), user.string])
            .string.flatMap { Int64($0) }
    }

    /// Redis's clock (ms): a score written between two readings lies between them plus its delay,
    /// however late the test ran.
    private static func now(_ stores: ClusterStores) async throws -> Int64 {
        let parts = try #require(try await stores.command(["TIME"]).array?.compactMap { $0.string.flatMap { Int64($0) } })
        try #require(parts.count == 2)
        return parts[0] * 1000 + parts[1] / 1000
    }

    @Test(arguments: [true, false])
    func anOwedWakeUp_isTakenOnceDue_forItsLease_andOnlyItsCurrentTicketSettlesIt(standalone: Bool) async throws {
        let stores = try await ClusterStores(standalone: standalone)
        defer { stores.close() }
        let claims = Self.claims(stores)
        let user = WhisperID.random()
        let take = { try await stores.loop.result { done in claims.store.takeDue(batch: 1_000, leaseMillis: 60_000, completion: done) } }
        let settle = { (ticket: WakeTicket) in
            await stores.loop.run { done in
                claims.store.settle(user, ticket: ticket, retryAfterFailure: false, windowMillis: 1_000, maxDelayMillis: 10_000)
                done(())
            }
        }

        _ = try await stores.loop.result { done in claims.store.owe(user, delayMillis: 60_000, completion: done) }
        #expect(try await take().isEmpty, "not due for a minute")
        let owed = try await stores.loop.result { done in claims.store.owe(user, delayMillis: 0, completion: done) }
        let before = try await Self.now(stores)
        let taken = try await take()
        let after = try await Self.now(stores)
        #expect(taken.map(\.user) == [user])
        #expect(try await take().isEmpty, "leased to the first taker")
        let leased = try #require(try await Self.score(stores, user))
        #expect(leased >= before + 60_000 && leased <= after + 60_000)

        await settle(owed)
        #expect(try await Self.score(stores, user) == leased, "the ticket from before the take is stale: nothing changes")
        await settle(try #require(taken.first).ticket)
        #expect(try await Self.score(stores, user) == nil)

        // Users of every bucket are taken by one sweep.
        let many = (0..<40).map { _ in WhisperID.random() }
        for other in many { _ = try await stores.loop.result { done in claims.store.owe(other, delayMillis: 0, completion: done) } }
        #expect(Set(many.map(RedisKeys.pushOwedBucket(of:))).count > 8)
        #expect(Set(try await take().map(\.user)) == Set(many))
    }

    @Test(arguments: [true, false])
    func aGivenUpSend_isDueAgainAfterABackoffThatDoubles_upToItsMaximum_andADeliveredOneIsForgotten(standalone: Bool) async throws {
        let stores = try await ClusterStores(standalone: standalone)
        defer { stores.close() }
        let claims = Self.claims(stores)
        let user = WhisperID.random()
        var ticket = try await stores.loop.result { done in claims.store.owe(user, delayMillis: 0, completion: done) }
        // 2 s, 4 s, 8 s, then the 10 s maximum.
        for expected: Int64 in [2_000, 4_000, 8_000, 10_000] {
            let current = ticket
            let before = try await Self.now(stores)
            await stores.loop.run { done in
                claims.store.settle(user, ticket: current, retryAfterFailure: true, windowMillis: 2_000, maxDelayMillis: 10_000)
                done(())
            }
            // Read on the settle's shard (so after it) before the clock is read again.
            let score = try #require(try await Self.score(stores, user))
            let after = try await Self.now(stores)
            #expect(score >= before + expected && score <= after + expected, "due \(score - before) ms after, \(expected) expected")
            ticket = WakeTicket(score)
        }
        #expect(try await stores.command(["HGET", stores.keys.pushTries(bucket: RedisKeys.pushOwedBucket(of: user)), user.string]).string == "4")

        let delivered = ticket
        await stores.loop.run { done in
            claims.store.settle(user, ticket: delivered, retryAfterFailure: false, windowMillis: 2_000, maxDelayMillis: 10_000)
            done(())
        }
        #expect(try await Self.score(stores, user) == nil)
        #expect(try await stores.command(["HEXISTS", stores.keys.pushTries(bucket: RedisKeys.pushOwedBucket(of: user)), user.string]).integer == 0)
    }

    @Test(arguments: [true, false])
    func recheck_findsTheUserOnline_orNothingWaiting_orTheWindowTaken_elseClaimsIt(standalone: Bool) async throws {
        let stores = try await ClusterStores(standalone: standalone)
        defer { stores.close() }
        let claims = Self.claims(stores)
        let recheck = { (user: WhisperID) in
            try await stores.loop.result { done in claims.store.recheck(user, windowMillis: 600_000, completion: done) }
        }
        let (eventsOnly, messages, online) = (WhisperID.random(), WhisperID.random(), WhisperID.random())
        #expect(try await recheck(eventsOnly) == .nothingWaits)

        try await stores.command(["RPUSH", stores.keys.events(eventsOnly), "{}"])
        #expect(try await recheck(eventsOnly) == .owed)
        #expect(try await stores.command(["PTTL", stores.keys.pushWake(eventsOnly)]).integer ?? 0 > 0, "the window is claimed")
        #expect(try await recheck(eventsOnly) == .coalesced)

        try await stores.command(["XADD", stores.keys.pending(messages), "*", "m", "x"])
        #expect(try await recheck(messages) == .owed)

        try await stores.command(["XADD", stores.keys.pending(online), "*", "m", "x"])
        try await stores.command(["SET", stores.keys.route(online), "thisnode:0:1"])
        #expect(try await recheck(online) == .online)
    }

    /// The crash case: the node that claimed and handed a wake-up dies before the provider took
    /// it (the dispatcher here never reports, as a killed process would not). After the
    /// in-flight bound, the sweep of a node sends it again, and its delivery settles it.
    @Test(arguments: [true, false])
    func aWakeUpLostWithItsNode_isSentAgainByTheSweep_afterTheInFlightBound(standalone: Bool) async throws {
        let stores = try await ClusterStores(standalone: standalone)
        defer { stores.close() }
        var limits = Limits()
        limits.pushCoalesceSeconds = 1
        limits.pushMaxAttempts = 1
        limits.pushRequestTimeoutSeconds = 2  // an in-flight bound of 2 s: past it, the 1 s window is free
        let dispatcher = HeldDispatcher()
        let push = OnLoop(PushService(limits: limits, claims: RedisWakeUpClaims(redis: stores.redis, keys: stores.keys),
                                      devices: OneDevice(), dispatcher: dispatcher, log: Log(level: .error, sink: MemoryLogSink())))
        let user = WhisperID.random()
        try await stores.command(["XADD", stores.keys.pending(user), "*", "m", "x"])
        let sweep = { try await stores.loop.result { done in push.store.resendOwed(completion: done) } }

        // Each "not yet" is checked only when the test surely ran within the bound (a loaded
        // machine may resume it late); the sends that follow hold either way.
        let bound = Duration.milliseconds(1_900)
        let woken = ContinuousClock.now
        await stores.loop.run { done in push.store.wake(user); done(()) }
        #expect(await eventually(within: 5) { dispatcher.count == 1 })
        var resending = ContinuousClock.now  // before the sweep that sends it again
        let early = try await sweep()
        if ContinuousClock.now - woken < bound { #expect(early == 0, "owed, but not due while it may still be in flight") }
        if early == 0 {
            try await Task.sleep(for: .milliseconds(2_200))
            resending = ContinuousClock.now
            #expect(try await sweep() == 1)
        }
        #expect(await eventually(within: 5) { dispatcher.count == 2 })
        let again = try await sweep()
        if ContinuousClock.now - resending < bound { #expect(again == 0, "leased to the sweep that sent it again") }
        #expect(await eventually(within: 5) { dispatcher.count == 2 + again }, "the last send is the one that holds the entry")

        await stores.loop.run { done in dispatcher.finishLast(delivered: true); done(()) }
        #expect(await eventually(within: 5) { (try? await Self.score(stores, user)) == nil }, "settled")
    }
}

/// A dispatcher that queues every job and reports only when told (`finishLast`); used on the
/// loop, `count` read from the test.
private final class HeldDispatcher: PushDispatcher, @unchecked Sendable {
    private let lock = NSLock()
    private var finishers: [(Bool) -> Void] = []
    var count: Int { lock.withLock { finishers.count } }

    func submit(_ job: PushJob, finished: @escaping (Bool) -> Void) -> PushSubmission {
        lock.withLock { finishers.append(finished) }
        return .queued
    }

    /// On the loop, where the real dispatcher runs its completions.
    func finishLast(delivered: Bool) {
        lock.withLock { finishers.last }?(delivered)
    }
}

private final class OneDevice: PushDevices {
    func device(of user: WhisperID, completion: @escaping StoreCompletion<PushDevice?>) {
        completion(.success(PushDevice(platform: .ios, pushToken: String(repeating: "a", count: 64), voipToken: nil)))
    }
}
