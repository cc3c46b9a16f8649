import WhisperProtocol

extension AuthService {
    /// The session a presented token stands for (by its hash). An unknown hash or an
    /// expired record → `NOT_REGISTERED`. (Token text that is not 32 bytes of base64 never
    /// gets here: `SessionToken(text:)` refuses it and the caller answers `NOT_REGISTERED`.)
    public func authenticate(_ hash: SessionHash, completion: @escaping Completion<SessionRecord>) {
        sessions.find(hash) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let record?) where !record.isExpired(atMillis: now()):
                completion(.success(record))
            case .success:
                completion(.failure(.notRegistered))
            }
        }
    }

    /// Whether a cached session is still live in the store (after pub/sub messages may have
    /// been lost); `false` for a missing, different or expired record.
    public func isStillValid(_ session: SessionRecord, completion: @escaping Completion<Bool>) {
        sessions.find(session.hash) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let record):
                completion(.success(record.map { $0.whisperId == session.whisperId && !$0.isExpired(atMillis: now()) } ?? false))
            }
        }
    }

    /// `session_refresh`: a new token with a fresh TTL; the old one dies in the same step.
    public func refresh(_ session: SessionRecord, client: ClientRef, completion: @escaping Completion<IssuedSession>) {
        let issued = issueSession(whisperId: session.whisperId, deviceId: session.deviceId, platform: session.platform,
                                  signPublicKey: session.signPublicKey)
        sessions.replace(session, with: issued.record, ttlSeconds: limits.sessionTTLSeconds,
                         origin: client.connection) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(false):
                completion(.failure(.notRegistered))
            case .success(true):
                log.info("session_refreshed", whisperId: session.whisperId.string, deviceId: session.deviceId.string)
                completion(.success(issued))
            }
        }
    }

    /// `logout`: the token dies; the socket stays open, unauthenticated.
    public func logout(_ session: SessionRecord, client: ClientRef, completion: @escaping Completion<Void>) {
        sessions.delete(session, origin: client.connection) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success:
                // Already gone (a racing refresh or login) is still a logout.
                log.info("logout", whisperId: session.whisperId.string, deviceId: session.deviceId.string)
                completion(.success(()))
            }
        }
    }

    /// Kills every session of an identity on every node (for bans: reason `banned`, close 4003).
    public func revokeAll(of whisperId: WhisperID, reason: RevocationReason, completion: @escaping Completion<Int>) {
        sessions.revokeAll(of: whisperId, reason: reason, origin: nil) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let revoked):
                log.info("sessions_revoked", whisperId: whisperId.string,
                         ["reason": .string(reason.rawValue), "count": .int(revoked.count)])
                completion(.success(revoked.count))
            }
        }
    }
}
