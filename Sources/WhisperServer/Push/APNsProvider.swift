import Foundation
import WhisperOps
import WhisperProtocol
import WhisperServices

/// Apple Push Notification service over HTTP/2 with token-based authentication
/// (docs/architecture.md "Push"): `POST <endpoint>/3/device/<token>` carrying an ES256 provider
/// token (`kid` = key id, `iss` = team id, `iat`) signed with the `.p8` key and reused for
/// 50 minutes (Apple refuses tokens older than an hour and throttles fresher ones).
///
/// A message wake-up is an `alert` push with a localisation key only (`WHISPER_WAKE`) and
/// `mutable-content`, so the app's notification service extension runs, connects and fetches —
/// delivered even when the app was killed, unlike a `background` push, which iOS throttles and
/// drops for force-quit apps. A call to a VoIP token is a `voip` push carrying the `callId`
/// only, priority 10 and expiration 0 (a call is worth its moment). No body names a sender,
/// a recipient, a group or a message.
final class APNsProvider: PushProvider {
    let name = PushJob.Provider.apns
    /// Provider tokens are made anew after this long.
    static let tokenLifetimeSeconds: Int64 = 50 * 60
    static let wakeBody = Array(#"{"aps":{"alert":{"loc-key":"WHISPER_WAKE"},"mutable-content":1,"sound":"default"}}"#.utf8)

    private let settings: PushSettings.APNs
    private let signer: JWTSigner
    private let wakeExpirySeconds: Int64
    private var providerToken: (text: String, issuedAt: Int64)?

    init(settings: PushSettings.APNs, limits: Limits) throws(ConfigError) {
        guard let pem = try? String(contentsOfFile: settings.keyFile, encoding: .utf8),
              let signer = JWTSigner(pem: pem, algorithm: .es256)
        else {
            throw ConfigError.invalidValue(variable: "WHISPER_APNS_KEY_FILE",
                                           expected: "a readable APNs signing key (.p8, PKCS#8 P-256 PEM)",
                                           got: settings.keyFile)
        }
        self.settings = settings
        self.signer = signer
        self.wakeExpirySeconds = Int64(limits.pushWakeExpirySeconds)
    }

    func request(for job: PushJob, nowSeconds: Int64) -> PushRequest? {
        guard let token = currentToken(nowSeconds: nowSeconds) else { return nil }
        var headers = ["authorization: bearer " + token, "apns-priority: 10"]
        let body: [UInt8]
        if job.isVoIPToken, case .call(let callIdText) = job.kind {
            headers += ["apns-topic: \(settings.topic).voip", "apns-push-type: voip", "apns-expiration: 0"]
            body = Array(#"{"aps":{},"callId":"\#(callIdText)"}"#.utf8)
        } else {
            // A call to a device without a VoIP token wakes the app like a message: the held
            // offer waits for its login.
            headers += ["apns-topic: " + settings.topic, "apns-push-type: alert",
                        "apns-expiration: \(nowSeconds + wakeExpirySeconds)", "apns-collapse-id: wake"]
            body = Self.wakeBody
        }
        return PushRequest(url: settings.endpoint + "/3/device/" + PushPath.segment(job.token), headers: headers, body: body)
    }

    func verdict(status: Int, body: [UInt8]) -> PushVerdict {
        let reason = ProviderErrorBody.string("reason", in: body)
        switch status {
        case 200: return .sent
        case 410: return .unregistered
        case 400 where reason == "BadDeviceToken": return .unregistered
        case 403 where reason == "ExpiredProviderToken" || reason == "InvalidProviderToken": return .refreshCredential
        case 429, 500...599: return .retry
        default: return .failed(reason: "\(status) \(reason ?? "")")
        }
    }

    func credentialRefused() { providerToken = nil }

    private func currentToken(nowSeconds: Int64) -> String? {
        if let providerToken, nowSeconds - providerToken.issuedAt < Self.tokenLifetimeSeconds,
           nowSeconds >= providerToken.issuedAt {
            return providerToken.text
        }
        var header = JSONWriter(capacity: 64)
        header.beginObject()
        header.key("alg"); header.string("ES256")
        header.key("kid"); header.string(settings.keyId)
        header.endObject()
        var claims = JSONWriter(capacity: 64)
        claims.beginObject()
        claims.key("iss"); claims.string(settings.teamId)
        claims.key("iat"); claims.int(nowSeconds)
        claims.endObject()
        guard let text = signer.token(header: String(decoding: header.bytes, as: UTF8.self),
                                      claims: String(decoding: claims.bytes, as: UTF8.self))
        else { return nil }
        providerToken = (text, nowSeconds)
        return text
    }
}

/// A device token as one URL path segment: tokens are printable ASCII (docs/protocol.md
/// "update_tokens"), and anything but unreserved characters is percent-encoded, so a token can
/// never change the request's path or query.
enum PushPath {
    static func segment(_ token: String) -> String {
        var out = ""
        for byte in token.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + Hex.encode([byte]).uppercased()
            }
        }
        return out
    }
}
