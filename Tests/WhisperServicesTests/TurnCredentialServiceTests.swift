import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// TURN REST credentials: HMAC-SHA1 against RFC 2202, the credential format coturn's
/// `use-auth-secret` checks, and the service's check order over fakes.
@Suite struct TurnCredentialServiceTests {
    @Test func hmacSHA1_matchesRFC2202TestCases1And2() {
        let case1 = HMACSHA1.authenticate(Array("Hi There".utf8), key: [UInt8](repeating: 0x0B, count: 20))
        #expect(Hex.encode(case1) == "b617318655057264e28bc0b6fb378c8ef146be00")
        let case2 = HMACSHA1.authenticate(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(Hex.encode(case2) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
    }

    @Test func credentials_areExpiryColonWhisperID_andBase64HMACOfTheUsername() throws {
        let whisperId = try #require(WhisperID.validate("WSP-ABCD-EFGH-IJ54"))
        let settings = TurnSettings(secret: Secret("north"), urls: ["turn:127.0.0.1:3478?transport=udp"])
        let credentials = TurnCredentialService.credentials(for: whisperId, expiresAtSeconds: 1_763_863_200,
                                                            settings: settings, ttlSeconds: 600)
        #expect(credentials.username == "1763863200:WSP-ABCD-EFGH-IJ54")
        // Computed independently: base64(hmac.new(b"north", username, sha1).digest()) in Python.
        #expect(credentials.credential == "dDeeQ6TT6kMiGXbNpBOGUXlpZ7I=")
        #expect(credentials.urls == settings.urls)
        #expect(credentials.ttlSeconds == 600)
    }

    @Test func issue_expiresTTLSecondsFromNow_andChargesTheCallLimit() throws {
        let harness = try TurnHarness(settings: TurnSettings(secret: Secret("s"), urls: ["stun:127.0.0.1"]))
        let credentials = try harness.issue().get()
        #expect(credentials.username.hasPrefix("\(TurnHarness.now / 1000 + 43_200):"))
        #expect(harness.rateLimits.charged.first?.map(\.action) == [.call, .call])
    }

    @Test func issue_isRateLimited_whenTheCallLimitIsExhausted() throws {
        let harness = try TurnHarness(settings: TurnSettings(secret: Secret("s"), urls: ["stun:127.0.0.1"]))
        harness.rateLimits.decision = .limited(retryAfterMs: 1_500)
        #expect(harness.issue().failure == .rateLimited(retryAfterMs: 1_500))
    }

    @Test func issue_failsAsInternalError_whenTURNIsNotConfigured() throws {
        let harness = try TurnHarness(settings: nil)
        #expect(harness.issue().failure?.code == .internalError)
        #expect(harness.rateLimits.charged.isEmpty)
    }
}

/// The service over a fake rate-limit store, with a session that plays the caller.
struct TurnHarness {
    static let now: Int64 = 1_763_820_000_000
    let rateLimits = FakeRateLimits()
    let service: TurnCredentialService
    let session: SessionRecord

    init(settings: TurnSettings?) throws {
        let limiter = RateLimiter(limits: .defaults, store: rateLimits, random: SeededRandom(seed: 7))
        service = TurnCredentialService(settings: settings, limits: .default, rateLimiter: limiter, now: { TurnHarness.now })
        session = SessionRecord(hash: SessionHash(validated: [UInt8](repeating: 1, count: 32)),
                                whisperId: try #require(WhisperID.validate("WSP-ABCD-EFGH-IJ54")),
                                deviceId: .random(), platform: .ios,
                                signPublicKey: [UInt8](repeating: 2, count: 32), expiresAtMillis: TurnHarness.now + 1)
    }

    func issue() -> Result<TurnCredentialService.Credentials, ServiceError> {
        var outcome: Result<TurnCredentialService.Credentials, ServiceError>?
        service.issue(for: session, client: ClientRef(ip: "192.0.2.9", connection: ConnectionRef(node: "n", connection: 1))) {
            outcome = $0
        }
        return outcome ?? .failure(.internalFailure("no completion"))
    }
}
