import CCurl
import Foundation
import WhisperOps
import WhisperProtocol
import WhisperServices

/// Firebase Cloud Messaging HTTP v1 (docs/architecture.md "Push"): `POST
/// <endpoint>/v1/projects/<project>/messages:send` with an OAuth 2.0 access token, obtained by
/// posting an RS256 JWT assertion signed with the service account's key to its `token_uri`
/// (RFC 7523) and kept until five minutes before it expires. A fetch that fails starts a
/// `CredentialBackoff` for the whole provider: until it passes no push fetches again, and the
/// sender holds its jobs (`credentialUnavailableUntil`).
///
/// Every push is a data-only, high-priority message without content: `{"type":"wake"}`, or
/// `{"type":"call","callId":…}` living as long as a call rings.
final class FCMProvider: PushProvider {
    let name = PushJob.Provider.fcm
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    private let endpoint: String
    private let projectId: String
    private let clientEmail: String
    private let keyId: String?
    private let tokenURI: String
    private let signer: JWTSigner
    private let transport: PushTransport
    private let wakeTTLSeconds: Int
    private let callTTLSeconds: Int64
    private let log: Log
    /// `whisper_push_oauth_failures_total{provider="fcm"}`.
    private let oauthFailures: Counter
    private var accessToken: (text: String, renewAt: Int64)?
    private var tokenBackoff: CredentialBackoff
    /// The last fetch failed in a way a retry does not mend (see `TokenFetch.refused`).
    private var tokenRefused = false

    init(settings: PushSettings.FCM, limits: Limits, transport: PushTransport, oauthFailures: Counter,
         log: Log) throws(ConfigError) {
        func invalid(_ expected: String) -> ConfigError {
            .invalidValue(variable: "WHISPER_FCM_CREDENTIALS_FILE", expected: expected, got: settings.credentialsFile)
        }
        guard let data = FileManager.default.contents(atPath: settings.credentialsFile) else {
            throw invalid("a readable service-account JSON file")
        }
        guard let account = try? JSONParser.parseObject(Array(data), limits: .init(maxInputBytes: 1 << 20, maxDepth: 8,
                                                                                   maxStringBytes: 1 << 20)),
              let projectId = account["project_id"]?.stringValue, !projectId.isEmpty,
              let clientEmail = account["client_email"]?.stringValue,
              let tokenURI = account["token_uri"]?.stringValue, tokenURI.lowercased().hasPrefix("https://"),
              let pem = account["private_key"]?.stringValue
        else {
            throw invalid("a service-account JSON with project_id, client_email, private_key and an https token_uri")
        }
        guard let signer = JWTSigner(pem: pem, algorithm: .rs256) else {
            throw invalid("a service account whose private_key is an RSA key of 2048 bits or more")
        }
        self.endpoint = settings.endpoint
        self.projectId = projectId
        self.clientEmail = clientEmail
        self.keyId = account["private_key_id"]?.stringValue
        self.tokenURI = tokenURI
        self.signer = signer
        self.transport = transport
        self.wakeTTLSeconds = limits.pushWakeExpirySeconds
        self.callTTLSeconds = limits.callRingTimeoutSeconds
        self.log = log
        self.oauthFailures = oauthFailures
        self.tokenBackoff = CredentialBackoff(baseMillis: limits.pushRetryBaseMillis, maxMillis: limits.pushRetryMaxMillis)
    }

    func request(for job: PushJob, nowSeconds: Int64) -> PushRequest? {
        guard let token = currentAccessToken(nowSeconds: nowSeconds) else { return nil }
        var body = JSONWriter(capacity: 256)
        body.beginObject()
        body.key("message")
        body.beginObject()
        body.key("token"); body.string(job.token)
        body.key("android")
        body.beginObject()
        body.key("priority"); body.string("high")
        if case .call = job.kind { body.key("ttl"); body.string("\(callTTLSeconds)s") } else {
            body.key("ttl"); body.string("\(wakeTTLSeconds)s")
        }
        body.endObject()
        body.key("data")
        body.beginObject()
        switch job.kind {
        case .wake:
            body.key("type"); body.string("wake")
        case .call(let callIdText):
            body.key("type"); body.string("call")
            body.key("callId"); body.string(callIdText)
        }
        body.endObject()
        body.endObject()
        body.endObject()
        return PushRequest(url: "\(endpoint)/v1/projects/\(PushPath.segment(projectId))/messages:send",
                           headers: ["authorization: Bearer " + token, "content-type: application/json"],
                           body: body.bytes)
    }

    func verdict(status: Int, body: [UInt8]) -> PushVerdict {
        let codes = ProviderErrorBody.fcmErrorCodes(in: body)
        switch status {
        case 200: return .sent
        case 404 where codes.isEmpty || codes.contains("UNREGISTERED"): return .unregistered
        case 400 where codes.contains("INVALID_ARGUMENT"): return .unregistered
        case 401: return .refreshCredential
        case 403 where !codes.contains("SENDER_ID_MISMATCH"): return .refreshCredential
        case 429, 500...599: return .retry
        default: return .failed(reason: "\(status) \(codes.first ?? "")")
        }
    }

    func credentialRefused() { accessToken = nil }

    /// Pushes wait while the token endpoint is unavailable; when it refused (a 4xx such as
    /// `invalid_grant`, a certificate that does not verify) they fail at once, as a bad
    /// configuration should show, though the fetch itself still backs off.
    func credentialUnavailableUntil(nowNanos: UInt64) -> UInt64? {
        tokenRefused ? nil : tokenBackoff.waitingUntil(nowNanos: nowNanos)
    }

    /// The cached access token, or a new one from `token_uri` (a blocking request on the
    /// sender's thread: FCM pushes wait for it anyway, and APNs has a thread of its own); nil
    /// without a request while the last failure's backoff lasts.
    private func currentAccessToken(nowSeconds: Int64) -> String? {
        if let accessToken, nowSeconds < accessToken.renewAt { return accessToken.text }
        let now = MonotonicClock.now()
        guard tokenBackoff.waitingUntil(nowNanos: now) == nil else { return nil }
        let fetched = fetchAccessToken(nowSeconds: nowSeconds)
        guard case .token(let text, let lifetime) = fetched else {
            oauthFailures.increment()
            tokenBackoff.failed(nowNanos: now)
            tokenRefused = fetched == .refused
            return nil
        }
        tokenBackoff.succeeded()
        tokenRefused = false
        accessToken = (text, nowSeconds + max(60, lifetime - 300))
        return text
    }

    private enum TokenFetch: Equatable {
        case token(String, lifetimeSeconds: Int64)
        /// 5xx, 429, 408, a timeout, no connection, an answer without a token: wait and retry.
        case unavailable
        /// Another 4xx, a certificate or URL libcurl refuses, a key that cannot sign.
        case refused
    }

    /// One exchange at `token_uri`; a failure logs `push_oauth_failed`.
    private func fetchAccessToken(nowSeconds: Int64) -> TokenFetch {
        let inARow = tokenBackoff.failures + 1
        guard let assertion = makeAssertion(nowSeconds: nowSeconds) else {
            log.warn("push_oauth_failed", ["provider": "fcm", "reason": "signing", "failuresInARow": .int(inARow)])
            return .refused
        }
        let form = "grant_type=" + PushPath.segment("urn:ietf:params:oauth:grant-type:jwt-bearer")
            + "&assertion=" + assertion
        let answer: PushTransport.Answer
        switch transport.perform(PushRequest(url: tokenURI, headers: ["content-type: application/x-www-form-urlencoded"],
                                             body: Array(form.utf8))) {
        case .success(let answered):
            answer = answered
        case .failure(let failure):
            log.warn("push_oauth_failed", ["provider": "fcm", "reason": .string(String(cString: curl_easy_strerror(failure.code))),
                                           "failuresInARow": .int(inARow)])
            return failure.isPermanent ? .refused : .unavailable
        }
        guard answer.status == 200, let object = try? JSONParser.parseObject(answer.body),
              let text = object["access_token"]?.stringValue, !text.isEmpty,
              text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            log.warn("push_oauth_failed", ["provider": "fcm", "status": .int(answer.status), "failuresInARow": .int(inARow)])
            let refused = (400...499).contains(answer.status) && answer.status != 408 && answer.status != 429
            return refused ? .refused : .unavailable
        }
        return .token(text, lifetimeSeconds: object["expires_in"]?.int64Value ?? 3600)
    }

    private func makeAssertion(nowSeconds: Int64) -> String? {
        var header = JSONWriter(capacity: 96)
        header.beginObject()
        header.key("alg"); header.string("RS256")
        header.key("typ"); header.string("JWT")
        if let keyId { header.key("kid"); header.string(keyId) }
        header.endObject()
        var claims = JSONWriter(capacity: 256)
        claims.beginObject()
        claims.key("iss"); claims.string(clientEmail)
        claims.key("scope"); claims.string(Self.scope)
        claims.key("aud"); claims.string(tokenURI)
        claims.key("iat"); claims.int(nowSeconds)
        claims.key("exp"); claims.int(nowSeconds + 3600)
        claims.endObject()
        return signer.token(header: String(decoding: header.bytes, as: UTF8.self),
                            claims: String(decoding: claims.bytes, as: UTF8.self))
    }
}
