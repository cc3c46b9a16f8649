import WhisperOps
import WhisperProtocol

/// A presigned upload: where to PUT, under which key, until when, and the headers that were
/// signed (the client must send exactly these).
public struct PresignedUpload: Sendable, Equatable {
    public let uploadURL: String
    public let objectKey: String
    public let expiresAtMillis: Int64
    public let headers: [Header]

    public struct Header: Sendable, Equatable {
        public let name: String
        public let value: String
    }
}

/// A presigned download.
public struct PresignedDownload: Sendable, Equatable {
    public let downloadURL: String
    public let expiresAtMillis: Int64
}

/// Attachments (docs/protocol.md "Attachments"): the server never sees a file, only signs
/// short-lived URLs for the S3-compatible store and records who may read what.
///
/// Presign, top to bottom (the body was validated by the route, the session checked):
/// 1. PRESIGN rate limit per identity and IP → else `RATE_LIMITED`;
/// 2. a fresh key `att/YYYY/MM/<uuid>.bin` and an `attachments` row (uploader, type, size,
///    retention) → a store failure is `INTERNAL_ERROR` and no URL is handed out;
/// 3. a SigV4 query-presigned PUT signing `host`, `content-type` and `content-length`, so the
///    store refuses a body of another size or type than declared.
///
/// Download: PRESIGN rate limit, then the uploader or a recorded recipient gets a presigned
/// GET; anyone else — and an unknown or deleted key — `NOT_FOUND`, so existence is not revealed.
/// A recipient's request is recorded in the same statement: once every recipient has asked,
/// the GC may delete the object (`AttachmentCollector`).
///
/// Recipients are recorded after a message carrying `attachment.objectKey` was accepted
/// (`recordRecipient(of:)`, called by `MessagingService`), only when its sender is the uploader.
public final class AttachmentService: AttachmentRecorder {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let presigner: S3Presigner
    private let limits: Limits
    private let store: AttachmentStore
    private let rateLimiter: RateLimiter
    private let random: RandomSource
    private let log: Log
    private let now: () -> Int64
    private let presigned: Counter?
    private let downloads: Counter?

    public init(settings: S3Settings, limits: Limits, store: AttachmentStore, rateLimiter: RateLimiter,
                random: RandomSource = SodiumRandom(), log: Log, metrics: WhisperMetrics? = nil,
                now: @escaping () -> Int64) {
        self.presigner = S3Presigner(settings: settings, endpoint: settings.publicEndpoint)
        self.limits = limits
        self.store = store
        self.rateLimiter = rateLimiter
        self.random = random
        self.log = log
        self.now = now
        presigned = metrics?.attachments.labels("presigned")
        downloads = metrics?.attachments.labels("download")
    }

    public func presign(_ request: AttachmentPresignPayload, session: SessionRecord, client: ClientRef,
                        completion: @escaping Completion<PresignedUpload>) {
        charged(session, client, completion) { [self] in
            let nowMillis = now()
            let objectKey = Self.objectKey(at: nowMillis, random: random)
            let record = AttachmentRecord(objectKey: objectKey, uploader: session.whisperId,
                                          contentType: request.contentType, sizeBytes: request.sizeBytes,
                                          expiresAtMillis: nowMillis + limits.attachmentRetentionSeconds * 1000)
            store.create(record) { [self] result in
                if case .failure(let error) = result { return completion(.failure(.storage(error))) }
                let headers = [PresignedUpload.Header(name: "Content-Type", value: request.contentType),
                               PresignedUpload.Header(name: "Content-Length", value: String(request.sizeBytes))]
                let ttl = limits.attachmentUploadURLTTLSeconds
                let url = presigner.presign(method: "PUT", objectKey: objectKey,
                                            headers: headers.map { (name: $0.name, value: $0.value) },
                                            expiresSeconds: ttl, nowSeconds: nowMillis / 1000)
                presigned?.increment()
                // Per attachment, so per message: debug (docs/operations.md "Logs").
                if log.isEnabled(.debug) {
                    log.debug("attachment_presigned", whisperId: session.whisperId.string,
                              ["objectKey": .string(objectKey), "contentType": .string(request.contentType),
                               "sizeBytes": .int(Int(clamping: request.sizeBytes))])
                }
                completion(.success(PresignedUpload(uploadURL: url, objectKey: objectKey,
                                                    expiresAtMillis: (nowMillis / 1000 + Int64(ttl)) * 1000,
                                                    headers: headers)))
            }
        }
    }

    public func download(objectKey: String, session: SessionRecord, client: ClientRef,
                         completion: @escaping Completion<PresignedDownload>) {
        guard objectKey.utf8.count <= limits.maxAttachmentObjectKeyBytes else {
            return completion(.failure(.notFound("unknown attachment")))
        }
        charged(session, client, completion) { [self] in
            store.authorizeDownload(objectKey, whisperId: session.whisperId) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(false):
                    completion(.failure(.notFound("unknown attachment")))
                case .success(true):
                    downloads?.increment()
                    let nowSeconds = now() / 1000
                    let ttl = limits.attachmentDownloadURLTTLSeconds
                    let url = presigner.presign(method: "GET", objectKey: objectKey, expiresSeconds: ttl,
                                                nowSeconds: nowSeconds)
                    completion(.success(PresignedDownload(downloadURL: url, expiresAtMillis: (nowSeconds + Int64(ttl)) * 1000)))
                }
            }
        }
    }

    /// After an accepted message: its recipient may download the attachment if the sender
    /// uploaded it. Fire-and-forget: a failure is logged, and that recipient's download is
    /// then `NOT_FOUND` (docs/operations.md "Attachments").
    public func recordRecipient(of message: SendMessagePayload) {
        guard let attachment = message.attachment else { return }
        store.recordRecipient(objectKey: attachment.objectKey, sender: message.from, recipient: message.to,
                              messageId: message.messageId.string) { [log] result in
            if case .failure(let error) = result {
                // The sender only: with the recipient beside it the line would record who wrote to whom.
                log.error("attachment_recipient_failed", whisperId: message.from.string, messageId: message.messageId.string,
                          ["reason": .string(error.description)])
            }
        }
    }

    /// `att/YYYY/MM/<uuid>.bin` (UTC month of the presign).
    static func objectKey(at millis: Int64, random: RandomSource) -> String {
        let day = SigV4.Timestamp(epochSeconds: millis / 1000).date
        var generator = RandomSourceGenerator(random)
        let uuid = CanonicalUUID.random(using: &generator)
        return "att/\(day.prefix(4))/\(day.dropFirst(4).prefix(2))/\(uuid.string).bin"
    }

    private func charged<T>(_ session: SessionRecord, _ client: ClientRef, _ completion: @escaping Completion<T>,
                            then body: @escaping () -> Void) {
        rateLimiter.check(.presign, subjects: [.identity(session.whisperId.string), .ip(client.ip)]) { result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            body()
        }
    }
}

/// What messaging tells attachments after accepting a message (`MessagingService`).
public protocol AttachmentRecorder: AnyObject {
    func recordRecipient(of message: SendMessagePayload)
}
