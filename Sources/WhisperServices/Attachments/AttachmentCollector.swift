import WhisperOps
import WhisperProtocol

/// Attachment garbage collection (docs/operations.md "Attachments", contract §15). An object
/// referenced by at least one message goes when
/// 1. every recipient of those messages has asked for its download URL (`GET
///    /attachments/{objectKey}/download`, recorded per recipient by `AttachmentService`), or
/// 2. the newest of those messages is older than the retention (`attachmentRetentionSeconds`,
///    30 days), downloaded or not —
/// whichever comes first; a `delivered` receipt alone never lets it go (apps receipt on
/// arrival and fetch the file later). An object no message references goes 24 h after its
/// presign (`attachmentUnreferencedGraceSeconds`).
///
/// One run, top to bottom:
/// 1. up to a batch of collectable keys is read;
/// 2. each object is deleted from the store first and only then its rows, so a failed delete
///    keeps the row and is retried next run; an object already absent counts as deleted.
/// Runs are idempotent: two at once (the admin trigger during the periodic run) delete each
/// object once and each row is counted by the run that removed it.
public final class AttachmentCollector {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let limits: Limits
    private let store: AttachmentGCStore
    private let objects: ObjectDeleter
    private let log: Log
    private let deletedCounter: Counter?
    private let failedCounter: Counter?

    public init(limits: Limits, store: AttachmentGCStore, objects: ObjectDeleter, log: Log, metrics: WhisperMetrics? = nil) {
        self.limits = limits
        self.store = store
        self.objects = objects
        self.log = log
        deletedCounter = metrics?.attachments.labels("deleted")
        failedCounter = metrics?.attachments.labels("delete_failed")
    }

    /// Answers how many objects this run deleted.
    public func run(completion: @escaping Completion<Int>) {
        store.collectable(graceSeconds: limits.attachmentUnreferencedGraceSeconds,
                          retentionSeconds: limits.attachmentRetentionSeconds, limit: limits.attachmentGCBatch) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let keys):
                delete(keys[...], deleted: 0, failed: 0, completion)
            }
        }
    }

    /// `POST /admin/attachments/gc/run`: a run now (whoever holds the periodic lease), then its
    /// `audit_events` row `attachments_gc` with the count.
    public func runByAdmin(clientAddress: String, completion: @escaping Completion<Int>) {
        run { [store] result in
            guard case .success(let deleted) = result else { return completion(result) }
            let entry = AuditEntry(action: "attachments_gc", target: nil, clientAddress: clientAddress,
                                   detailsJSON: #"{"deleted":\#(deleted)}"#)
            store.audit(entry) { completion($0.map { deleted }.mapError(ServiceError.storage)) }
        }
    }

    /// One object at a time: a run is background work, and one S3 request at a time keeps it
    /// gentle on the store and on the PostgreSQL pool.
    private func delete(_ keys: ArraySlice<String>, deleted: Int, failed: Int, _ completion: @escaping Completion<Int>) {
        guard let key = keys.first else {
            log.info("attachment_gc", ["deleted": .int(deleted), "failed": .int(failed)])
            return completion(.success(deleted))
        }
        objects.delete(objectKey: key) { [self] gone in
            guard gone else {
                failedCounter?.increment()
                log.warn("attachment_delete_failed", ["objectKey": .string(key)])
                return delete(keys.dropFirst(), deleted: deleted, failed: failed + 1, completion)
            }
            store.forget(key) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(let removed):
                    if removed { deletedCounter?.increment() }
                    delete(keys.dropFirst(), deleted: deleted + (removed ? 1 : 0), failed: failed, completion)
                }
            }
        }
    }
}
