import WhisperProtocol

/// Public-key look-up (docs/protocol.md "GET /users/{whisperId}/keys"): a client adding a
/// contact by Whisper ID needs its encryption key to encrypt to it and its signing key to verify
/// what it sends. Keys never change, so the answer is safe to cache on the phone; `banned`
/// tells the client to stop starting conversations with the identity.
public final class KeyDirectory {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    public struct Entry: Sendable, Equatable {
        public let whisperId: WhisperID
        public let keys: IdentityKeys
        public let isBanned: Bool
    }

    private let identities: IdentityStore

    public init(identities: IdentityStore) {
        self.identities = identities
    }

    /// The identity's keys and status; unknown → `NOT_FOUND`.
    public func lookup(_ whisperId: WhisperID, completion: @escaping Completion<Entry>) {
        identities.find(whisperId) { result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(nil):
                completion(.failure(.notFound("unknown whisperId")))
            case .success(let stored?):
                completion(.success(Entry(whisperId: whisperId, keys: stored.keys, isBanned: stored.isBanned)))
            }
        }
    }
}
