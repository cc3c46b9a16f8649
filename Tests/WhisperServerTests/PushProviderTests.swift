import Foundation
import Testing
import WhisperOps
import WhisperProtocol
import WhisperServices
@testable import WhisperServer

/// The providers' requests and what their answers mean (docs/protocol.md "Push"); the wire
/// itself is checked against the HTTP/2 fakes in Tests/interop/test_push.py.
@Suite struct PushProviderTests {
    static func fixturePath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/push/" + name).path
    }

    static func apns() throws -> APNsProvider {
        try APNsProvider(settings: PushSettings.APNs(keyFile: fixturePath("es256-test-key.p8"), keyId: "KEY1234567",
                                                     teamId: "TEAM123456", topic: "org.example.whisper",
                                                     endpoint: "https://apns.test"),
                         limits: Limits())
    }

    static func job(_ kind: PushJob.Kind, token: String = "0a1b", voip: Bool = false,
                    provider: PushJob.Provider = .apns) -> PushJob {
        PushJob(user: WhisperID.random(), provider: provider, token: token, isVoIPToken: voip, kind: kind)
    }

    static func header(_ name: String, in request: PushRequest) -> String? {
        request.headers.first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
    }

    @Test func apnsWake_isAnAlertWithoutContent_onTheRegularTopic() throws {
        let request = try #require(try Self.apns().request(for: Self.job(.wake), nowSeconds: 1_000))
        #expect(request.url == "https://apns.test/3/device/0a1b")
        #expect(Self.header("apns-topic", in: request) == "org.example.whisper")
        #expect(Self.header("apns-push-type", in: request) == "alert")
        #expect(Self.header("apns-priority", in: request) == "10")
        #expect(Self.header("apns-expiration", in: request) == "\(1_000 + Limits().pushWakeExpirySeconds)")
        #expect(String(decoding: request.body, as: UTF8.self)
            == #"{"aps":{"alert":{"loc-key":"WHISPER_WAKE"},"mutable-content":1,"sound":"default"}}"#)
    }

    @Test func apnsCall_isAVoIPPushCarryingOnlyTheCallIdAsTheCallerSpeltIt_onTheVoIPToken() throws {
        let callId = "0F8FAD5B-D9CB-469F-A165-70867728950E"
        let request = try #require(try Self.apns().request(for: Self.job(.call(callIdText: callId), voip: true), nowSeconds: 1_000))
        #expect(Self.header("apns-topic", in: request) == "org.example.whisper.voip")
        #expect(Self.header("apns-push-type", in: request) == "voip")
        #expect(Self.header("apns-expiration", in: request) == "0")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"aps":{},"callId":"\#(callId)"}"#)
    }

    @Test func apnsProviderToken_isReusedFor50Minutes_andRemadeAfterARefusal() throws {
        let apns = try Self.apns()
        func token(at now: Int64) throws -> String? {
            Self.header("authorization", in: try #require(apns.request(for: Self.job(.wake), nowSeconds: now)))
        }
        let first = try token(at: 10_000)
        #expect(try token(at: 10_000 + 49 * 60) == first)
        let renewed = try token(at: 10_000 + 50 * 60)
        #expect(renewed != first)
        apns.credentialRefused()
        #expect(try token(at: 10_000 + 50 * 60 + 1) != renewed)
    }

    @Test func deviceTokenInThePath_isPercentEncoded_soItCannotChangeThePath() throws {
        let request = try #require(try Self.apns().request(for: Self.job(.wake, token: "../x?y=1#z"), nowSeconds: 1))
        #expect(request.url == "https://apns.test/3/device/..%2Fx%3Fy%3D1%23z")
    }

    @Test func apnsAnswers_mapToVerdicts() throws {
        let apns = try Self.apns()
        func body(_ reason: String) -> [UInt8] { Array(#"{"reason":"\#(reason)"}"#.utf8) }
        #expect(apns.verdict(status: 200, body: []) == .sent)
        #expect(apns.verdict(status: 410, body: body("Unregistered")) == .unregistered)
        #expect(apns.verdict(status: 400, body: body("BadDeviceToken")) == .unregistered)
        #expect(apns.verdict(status: 400, body: body("BadTopic")) == .failed(reason: "400 BadTopic"))
        #expect(apns.verdict(status: 403, body: body("ExpiredProviderToken")) == .refreshCredential)
        #expect(apns.verdict(status: 429, body: body("TooManyRequests")) == .retry)
        #expect(apns.verdict(status: 503, body: []) == .retry)
    }

    @Test func fcmAnswers_mapToVerdicts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-fcm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try String(contentsOfFile: Self.fixturePath("rs256-test-key.pem"), encoding: .utf8)
        var account = JSONWriter()
        account.beginObject()
        for (name, value) in [("type", "service_account"), ("project_id", "whisper-test"), ("private_key", key),
                              ("client_email", "push@whisper-test.iam.gserviceaccount.com"),
                              ("token_uri", "https://oauth.test/token")] {
            account.key(name); account.string(value)
        }
        account.endObject()
        let file = directory.appendingPathComponent("sa.json")
        try Data(account.bytes).write(to: file)
        let fcm = try FCMProvider(settings: PushSettings.FCM(credentialsFile: file.path, endpoint: "https://fcm.test"),
                                  limits: Limits(), transport: PushTransport(caFile: nil, timeoutSeconds: 1),
                                  oauthFailures: WhisperMetrics().pushOAuthFailures.labels("fcm"),
                                  log: Log(level: .error, sink: MemoryLogSink()))
        func error(_ status: Int, _ code: String) -> [UInt8] {
            Array(#"{"error":{"code":\#(status),"details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(code)"}]}}"#.utf8)
        }
        #expect(fcm.verdict(status: 200, body: []) == .sent)
        #expect(fcm.verdict(status: 404, body: error(404, "UNREGISTERED")) == .unregistered)
        #expect(fcm.verdict(status: 400, body: error(400, "INVALID_ARGUMENT")) == .unregistered)
        #expect(fcm.verdict(status: 401, body: []) == .refreshCredential)
        #expect(fcm.verdict(status: 403, body: error(403, "SENDER_ID_MISMATCH")) == .failed(reason: "403 SENDER_ID_MISMATCH"))
        #expect(fcm.verdict(status: 429, body: error(429, "QUOTA_EXCEEDED")) == .retry)
        #expect(fcm.verdict(status: 500, body: []) == .retry)
    }

    @Test func fcmProvider_refusesAServiceAccountWithoutAnRSAKey() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-fcm-\(UUID().uuidString).json")
        try Data(#"{"project_id":"p","client_email":"e","token_uri":"https://t","private_key":"nope"}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: ConfigError.self) {
            try FCMProvider(settings: PushSettings.FCM(credentialsFile: file.path, endpoint: "https://fcm.test"),
                            limits: Limits(), transport: PushTransport(caFile: nil, timeoutSeconds: 1),
                            oauthFailures: WhisperMetrics().pushOAuthFailures.labels("fcm"),
                            log: Log(level: .error, sink: MemoryLogSink()))
        }
    }

    @Test func credentialBackoff_waitsLongerAfterEachFailureInARow_capped_andASuccessEndsIt() {
        var backoff = CredentialBackoff(baseMillis: 500, maxMillis: 2_000, random: { $0.upperBound })
        #expect(backoff.waitingUntil(nowNanos: 0) == nil)
        backoff.failed(nowNanos: 1_000_000_000)
        #expect(backoff.waitingUntil(nowNanos: 1_000_000_000) == 1_500_000_000)
        #expect(backoff.waitingUntil(nowNanos: 1_500_000_000) == nil)
        backoff.failed(nowNanos: 2_000_000_000)
        #expect(backoff.waitingUntil(nowNanos: 2_000_000_000) == 3_000_000_000)
        for _ in 0..<10 { backoff.failed(nowNanos: 10_000_000_000) }
        #expect(backoff.waitingUntil(nowNanos: 10_000_000_000) == 12_000_000_000)
        backoff.succeeded()
        #expect(backoff.waitingUntil(nowNanos: 10_000_000_000) == nil)
        #expect(backoff.failures == 0)
    }

    @Test func backoff_doublesWithEqualJitter_honoursRetryAfter_andIsCapped() {
        func delay(_ attempt: Int, retryAfter: Int64 = 0, pick: @escaping (ClosedRange<Int64>) -> Int64) -> Int64 {
            PushSenderThread.backoffMillis(attempt: attempt, baseMillis: 500, maxMillis: 60_000,
                                           retryAfterSeconds: retryAfter, random: pick)
        }
        #expect(delay(1) { $0.lowerBound } == 250)
        #expect(delay(1) { $0.upperBound } == 500)
        #expect(delay(2) { $0.lowerBound } == 500)
        #expect(delay(3) { $0.upperBound } == 2_000)
        #expect(delay(1, retryAfter: 3) { $0.lowerBound } == 3_000)
        #expect(delay(30) { $0.upperBound } == 60_000)
        #expect(delay(1, retryAfter: 86_400) { $0.lowerBound } == 60_000)
    }
}
