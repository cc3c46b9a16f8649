import WhisperProtocol
import WhisperServices

/// One push provider's protocol (APNs, FCM HTTP v1): how a job becomes an HTTP/2 request and
/// what an answer means. Called only on its `PushSender`'s thread.
protocol PushProvider: AnyObject {
    var name: PushJob.Provider { get }
    /// The request for `job`; nil when no credential can be had now (the job fails).
    func request(for job: PushJob, nowSeconds: Int64) -> PushRequest?
    func verdict(status: Int, body: [UInt8]) -> PushVerdict
    /// The provider refused the credential (expired or revoked): the next request makes a new one.
    func credentialRefused()
    /// While fetching the credential failed lately and its backoff lasts, the monotonic time
    /// it may be tried again; meanwhile `request` returns nil without trying and the sender
    /// holds its jobs. Nil when a request can be built now.
    func credentialUnavailableUntil(nowNanos: UInt64) -> UInt64?
}

extension PushProvider {
    /// A provider that makes its credential itself (APNs signs its own token) never waits.
    func credentialUnavailableUntil(nowNanos: UInt64) -> UInt64? { nil }
}

struct PushRequest {
    let url: String
    /// `name: value` lines.
    let headers: [String]
    let body: [UInt8]
}

enum PushVerdict: Equatable {
    case sent
    /// The token is dead (uninstalled app, expired registration): remove it, never retry.
    case unregistered
    /// Throttled or a server error: retry after backoff (or the answer's `Retry-After`).
    case retry
    /// The credential was refused: make a new one and try once more.
    case refreshCredential
    /// Permanent for this job (bad request, wrong topic, …): counted, not retried.
    case failed(reason: String)
}

extension PushVerdict {
    /// The `whisper_push_total` result a final verdict counts as.
    var metricResult: String {
        switch self {
        case .sent: return "sent"
        case .unregistered: return "unregistered"
        case .retry, .refreshCredential: return "retried"
        case .failed: return "failed"
        }
    }

    /// A final verdict after which nothing is left to send: the provider took the push, or
    /// its token is dead (removed; a new one comes with the app's next `update_tokens`).
    var isDelivered: Bool {
        switch self {
        case .sent, .unregistered: return true
        case .retry, .refreshCredential, .failed: return false
        }
    }
}

/// The small JSON error bodies providers answer with.
enum ProviderErrorBody {
    /// A top-level string member (`{"reason":"Unregistered"}` from APNs).
    static func string(_ key: String, in body: [UInt8]) -> String? {
        guard let object = try? JSONParser.parseObject(body) else { return nil }
        return object[key]?.stringValue
    }

    /// FCM's `error.details[].errorCode` values (google.firebase.fcm.v1.FcmError).
    static func fcmErrorCodes(in body: [UInt8]) -> [String] {
        guard let object = try? JSONParser.parseObject(body),
              let details = object["error"]?.objectValue?["details"]?.arrayValue else { return [] }
        return details.compactMap { $0.objectValue?["errorCode"]?.stringValue }
    }
}
