import WhisperOps
import WhisperProtocol

/// The zero-knowledge contacts backup (docs/protocol.md "Contacts backup"): one encrypted blob
/// per identity that only the seed phrase can open, so a recovered phone gets its contact list
/// back while the server learns nothing of it (sizes and times only). Every call is the
/// session's own blob — there is no way to name another identity's — and charges the BACKUP
/// rate limit per identity and IP before touching the store.
public final class ContactsBackupService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let store: ContactsBackupStore
    private let rateLimiter: RateLimiter

    public init(store: ContactsBackupStore, rateLimiter: RateLimiter) {
        self.store = store
        self.rateLimiter = rateLimiter
    }

    /// Replaces the blob; answers `updatedAt`.
    public func upload(_ backup: ContactsBackupPayload, session: SessionRecord, client: ClientRef,
                       completion: @escaping Completion<Int64>) {
        charged(session, client, completion) { [store] in
            store.put(backup, for: session.whisperId) { completion($0.mapError(ServiceError.storage)) }
        }
    }

    /// The blob; none stored → `NOT_FOUND`.
    public func download(session: SessionRecord, client: ClientRef, completion: @escaping Completion<StoredContactsBackup>) {
        charged(session, client, completion) { [store] in
            store.get(session.whisperId) { result in
                switch result {
                case .failure(let error): completion(.failure(.storage(error)))
                case .success(nil): completion(.failure(.notFound("no contacts backup")))
                case .success(let backup?): completion(.success(backup))
                }
            }
        }
    }

    /// Deletes the blob; none stored → `NOT_FOUND`.
    public func delete(session: SessionRecord, client: ClientRef, completion: @escaping Completion<Void>) {
        charged(session, client, completion) { [store] in
            store.delete(session.whisperId) { result in
                switch result {
                case .failure(let error): completion(.failure(.storage(error)))
                case .success(false): completion(.failure(.notFound("no contacts backup")))
                case .success(true): completion(.success(()))
                }
            }
        }
    }

    /// Charges one BACKUP hit to the identity and the IP, then runs `body`; a refusal (or a
    /// failing limiter) answers `completion` instead.
    private func charged<T>(_ session: SessionRecord, _ client: ClientRef, _ completion: @escaping Completion<T>,
                            then body: @escaping () -> Void) {
        rateLimiter.check(.backup, subjects: [.identity(session.whisperId.string), .ip(client.ip)]) { result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            body()
        }
    }
}
