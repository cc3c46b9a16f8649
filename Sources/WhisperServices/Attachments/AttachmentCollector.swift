import WhisperOps
import WhisperProtocol

/// Attachment garbage collection (docs/operations.md "Attachments"). An object goes when
/// 1. every recipient of the messages that carried it has receipted `delivered` (only objects
///    referenced by at least one message), or
/// 2. it is past its retention (`expires_at`, 30 days after presign), or
/// 3. no message references it 24 h after its presign.
///
/// One run, top to bottom:
/// 1. up to a batch of undelivered recipient rows are checked against the delivery ledger
///    (Redis: the `delivered` receipt, or the message gone past the pending TTL) and the
///    settled ones get `delivered_at` — receipts themselves never touch PostgreSQL;
/// 2. up to a batch of collectable keys is read;
/// 3. each object is deleted from the store first and only then its rows, so a failed delete
///    keeps the row and is retried next run; an object already absent counts as deleted.
/// Runs are idempotent: two at once (the admin trigger during the periodic run) delete each
/// object once and each row is counted by the run that removed it.
public final class AttachmentCollector {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let limits: Limits
    private let store: AttachmentGCStore
    private let ledger: DeliveryLedger
    private let objects: ObjectDeleter
    private let log: Log
    private let deletedCounter: Counter?
    private let failedCounter: Counter?

    public init(limits: Limits, store: AttachmentGCStore, ledger: DeliveryLedger, objects: ObjectDeleter, log: Log,
                metrics: WhisperMetrics? = nil) {
        self.limits = limits
        self.store = store
        self.ledger = ledger
        self.objects = objects
        self.log = log
        deletedCounter = metrics?.attachments.labels("deleted")
        failedCounter = metrics?.attachments.labels("delete_failed")
    }

    /// Answers how many objects this run deleted.
    public func run(completion: @escaping Completion<Int>) {
        settleDeliveries { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            store.collectable(graceSeconds: limits.attachmentUnreferencedGraceSeconds, limit: limits.attachmentGCBatch) {
                [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(let keys):
                    delete(keys[...], deleted: 0, failed: 0, completion)
                }
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

    private func settleDeliveries(_ completion: @escaping Completion<Void>) {
        store.undeliveredRecipients(limit: limits.attachmentGCBatch) { [self] result in
            guard case .success(let rows) = result, !rows.isEmpty else {
                return completion(result.map { _ in () }.mapError(ServiceError.storage))
            }
            ledger.settled(rows) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(let flags):
                    let settled = zip(rows, flags).filter(\.1).map(\.0)
                    guard !settled.isEmpty else { return completion(.success(())) }
                    store.markDelivered(settled) { completion($0.mapError(ServiceError.storage)) }
                }
            }
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
