import Foundation
import Testing
import WhisperOps
import WhisperProtocol
import WhisperServices
import WhisperTesting
@testable import WhisperServer

/// A provider's sender against a fake FCM over real HTTPS (docs/operations.md "Push").
@Suite struct PushSenderTests {
    struct Setup {
        let fake: FakeFCM
        let sender: PushSender
        let metrics: WhisperMetrics

        var oauthFailures: UInt64 { metrics.pushOAuthFailures.labels("fcm").value }
        func stop() {
            sender.stop()
            fake.stop()
        }
    }

    /// A sender whose token backoff starts at `backoffMillis` and doubles up to `maxBackoffMillis`;
    /// `trustFake: false` leaves the fake's certificate untrusted (system CAs only).
    static func setUp(backoffMillis: Int64, maxBackoffMillis: Int64? = nil, queueCapacity: Int = Limits().pushQueueCapacity,
                      trustFake: Bool = true) async throws -> Setup {
        let fake = try await FakeFCM()
        var limits = Limits()
        limits.pushRetryBaseMillis = backoffMillis
        limits.pushRetryMaxMillis = maxBackoffMillis ?? backoffMillis
        limits.pushQueueCapacity = queueCapacity
        let metrics = WhisperMetrics(includeProcessMetrics: false)
        let transport = PushTransport(caFile: trustFake ? fake.caFile : nil, timeoutSeconds: 5)
        let log = Log(level: .error, sink: MemoryLogSink())
        let fcm = try FCMProvider(settings: PushSettings.FCM(credentialsFile: fake.credentialsFile,
                                                             endpoint: "https://127.0.0.1:\(fake.port)"),
                                  limits: limits, transport: transport,
                                  oauthFailures: metrics.pushOAuthFailures.labels("fcm"), log: log)
        let sender = try #require(PushSender(provider: fcm, transport: transport, limits: limits,
                                             outcomes: PushOutcomes(metrics: metrics, unregistered: { _ in }), log: log))
        return Setup(fake: fake, sender: sender, metrics: metrics)
    }

    static func wake(_ token: String) -> PushJob {
        PushJob(user: WhisperID.random(), provider: .fcm, token: token, isVoIPToken: false, kind: .wake)
    }

    @Test func anOAuthOutage_costsOneTokenRequestPerBackoffStep_notOnePerPush_andThePushesGoOutOnceItRecovers() async throws {
        let setup = try await Self.setUp(backoffMillis: 200, maxBackoffMillis: 400)
        defer { setup.stop() }
        setup.fake.answerTokens(FakeFCM.Answer(status: 503, body: #"{"error":"unavailable"}"#))
        let pushes = 50
        let start = ContinuousClock.now
        for index in 0..<pushes { #expect(setup.sender.submit(Self.wake("outage-\(index)"))) }
        try await Task.sleep(for: .seconds(2))
        // Waits of 100–200 ms, then 200–400 ms: about a dozen requests in 2 s, whatever the
        // number of pushes waiting — one request per push would be 50, and each retry more. A
        // loaded machine oversleeps: the bound follows the time that really passed.
        let during = setup.fake.tokenRequests
        let slept = (ContinuousClock.now - start) / .milliseconds(200)
        #expect(during >= 2 && during <= 3 + Int(slept.rounded(.up)), "\(during) token requests for \(pushes) pushes in \(slept / 5) s")
        #expect(await eventually { setup.oauthFailures == UInt64(setup.fake.tokenRequests) }, "each failure counted")
        #expect(setup.fake.sends.isEmpty)
        #expect(setup.sender.outstanding == pushes, "the pushes wait for the credential instead of failing")
        #expect(setup.metrics.push.labels("fcm", "failed").value == 0)

        setup.fake.answerTokens(.token)
        #expect(await eventually(within: 10) { setup.fake.sends.count == pushes }, "\(setup.fake.sends.count) sent")
        #expect(setup.fake.tokenRequests == Int(setup.oauthFailures) + 1, "one token for all the pushes once it recovered")
        #expect(await eventually { setup.metrics.push.labels("fcm", "sent").value == UInt64(pushes) })
        #expect(await eventually { setup.sender.outstanding == 0 })
    }

    /// A token endpoint that refuses (400 `invalid_grant`: a revoked key) is a configuration to
    /// fix, not an outage to wait out: the pushes fail at once (and `WhisperPushFailures` can
    /// see it), yet they do not each ask for a token.
    @Test func aRefusedCredential_failsThePushesAtOnce_withoutATokenRequestEach() async throws {
        let setup = try await Self.setUp(backoffMillis: 5_000)
        defer { setup.stop() }
        setup.fake.answerTokens(FakeFCM.Answer(status: 400, body: #"{"error":"invalid_grant"}"#))
        let pushes = 20
        for index in 0..<pushes { #expect(setup.sender.submit(Self.wake("refused-\(index)"))) }
        #expect(await eventually { setup.metrics.push.labels("fcm", "failed").value == UInt64(pushes) })
        #expect(setup.fake.tokenRequests == 1)
        #expect(setup.oauthFailures == 1)
        #expect(setup.sender.outstanding == 0)
    }

    @Test func aTokenEndpointWhoseCertificateDoesNotVerify_failsThePushesAtOnce() async throws {
        let setup = try await Self.setUp(backoffMillis: 5_000, trustFake: false)
        defer { setup.stop() }
        let pushes = 5
        for index in 0..<pushes { #expect(setup.sender.submit(Self.wake("untrusted-\(index)"))) }
        #expect(await eventually { setup.metrics.push.labels("fcm", "failed").value == UInt64(pushes) })
        #expect(setup.oauthFailures == 1)
        #expect(setup.fake.tokenRequests == 0, "the assertion never goes to an endpoint that is not trusted")
    }

    @Test func whileTheCredentialBacksOff_queuedPushesStayInTheBoundedQueue_andTheRestAreDropped() async throws {
        let setup = try await Self.setUp(backoffMillis: 20_000, queueCapacity: 10)
        defer { setup.stop() }
        setup.fake.answerTokens(FakeFCM.Answer(status: 500, body: "{}"))
        #expect(setup.sender.submit(Self.wake("first")))
        #expect(await eventually { setup.fake.tokenRequests == 1 && setup.sender.outstanding == 1 })
        let accepted = (0..<25).filter { setup.sender.submit(Self.wake("later-\($0)")) }.count
        #expect(accepted == 10, "the queue's capacity, no more")
        try await Task.sleep(for: .milliseconds(300))
        #expect(setup.fake.tokenRequests == 1, "no push fetches while the backoff lasts")
        #expect(setup.sender.outstanding == 11)
    }
}
