import WhisperOps
import WhisperProtocol

/// Blocking (docs/protocol.md "Blocking"): a user's list of identities from which nothing
/// reaches it — no message envelope (1:1 or group), no call offer or VoIP push, no typing, no
/// presence — while the blocked party is told nothing (its sends are acknowledged and dropped,
/// its calls time out unanswered). One instance per event loop; completions run on that loop.
///
/// The list lives in PostgreSQL (`BlockStore`, the source of truth); the Redis scripts that
/// route messages, calls, typing and presence check a copy of it (`BlockMirror`), so
/// enforcement costs no extra round trip. Every change writes PostgreSQL first, then the copy;
/// the copy is rewritten from PostgreSQL at each login of the user (`restore`), so a Redis that
/// lost it — or a copy step that failed after its commit — heals then.
///
/// `block {whisperId}`, top to bottom (payload validated and session checked by the gateway):
/// 1. not oneself → else `INVALID_PAYLOAD`;
/// 2. the GROUP rate limit per identity and IP → else `RATE_LIMITED`;
/// 3. recorded in PostgreSQL, unless the id is not a registered identity → `NOT_FOUND`, or
///    the user already blocks `Limits.maxBlocksPerUser` identities → `INVALID_PAYLOAD`; a
///    repeated block changes nothing and succeeds;
/// 4. added to the Redis copy (also for a repeat, which heals a copy step that failed).
/// `unblock {whisperId}`: steps 2, then forgotten in PostgreSQL and in the copy — succeeds
/// whether or not the id was blocked. `blocks_list`: step 2, then the list from PostgreSQL.
/// A failed store step answers `INTERNAL_ERROR`; repeating the frame is safe.
public final class BlockService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let limits: Limits
    private let store: BlockStore
    private let mirror: BlockMirror
    private let rateLimiter: RateLimiter
    private let log: Log

    public init(limits: Limits, store: BlockStore, mirror: BlockMirror, rateLimiter: RateLimiter, log: Log) {
        self.limits = limits
        self.store = store
        self.mirror = mirror
        self.rateLimiter = rateLimiter
        self.log = log
    }

    public func block(_ blocked: WhisperID, session: SessionRecord, client: ClientRef, completion: @escaping Completion<Void>) {
        let blocker = session.whisperId
        guard blocked != blocker else { return completion(.failure(.invalidPayload(.invalidValue(field: "whisperId")))) }
        charged(session, client, completion) { [self] in
            store.add(blocked, by: blocker, max: limits.maxBlocksPerUser) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(.unknownIdentity):
                    completion(.failure(.notFound("unknown whisperId")))
                case .success(.full):
                    completion(.failure(.invalidPayload(.tooManyItems(field: "blocks", max: limits.maxBlocksPerUser))))
                case .success(let outcome):
                    if log.isEnabled(.debug) {
                        log.debug("block", whisperId: blocker.string,
                                  ["blocked": .string(blocked.string), "new": .bool(outcome == .added)])
                    }
                    mirror.add(blocked, by: blocker) { completion($0.mapError(ServiceError.storage)) }
                }
            }
        }
    }

    public func unblock(_ blocked: WhisperID, session: SessionRecord, client: ClientRef, completion: @escaping Completion<Void>) {
        let blocker = session.whisperId
        charged(session, client, completion) { [self] in
            store.remove(blocked, by: blocker) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(let removed):
                    if log.isEnabled(.debug) {
                        log.debug("unblock", whisperId: blocker.string, ["blocked": .string(blocked.string), "removed": .bool(removed)])
                    }
                    mirror.remove(blocked, by: blocker) { completion($0.mapError(ServiceError.storage)) }
                }
            }
        }
    }

    /// The identities the session's user blocks, oldest block first.
    public func list(session: SessionRecord, client: ClientRef, completion: @escaping Completion<[WhisperID]>) {
        charged(session, client, completion) { [store] in
            store.list(of: session.whisperId) { completion($0.mapError(ServiceError.storage)) }
        }
    }

    /// At a login of `user` (`register_proof`): rewrites its Redis copy from PostgreSQL.
    /// Answers how many identities it blocks. Not rate limited (logins are, by REGISTER).
    public func restore(_ user: WhisperID, completion: @escaping Completion<Int>) {
        store.list(of: user) { [mirror] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let blocked):
                mirror.replace(blocked, of: user) { completion($0.map { blocked.count }.mapError(ServiceError.storage)) }
            }
        }
    }

    /// Charges one GROUP hit to the identity and the IP, then runs `body`; a refusal (or a
    /// failing limiter) answers `completion` instead.
    private func charged<T>(_ session: SessionRecord, _ client: ClientRef, _ completion: @escaping Completion<T>,
                            then body: @escaping () -> Void) {
        rateLimiter.check(.group, subjects: [.identity(session.whisperId.string), .ip(client.ip)]) { result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            body()
        }
    }
}
