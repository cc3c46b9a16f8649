import WhisperOps
import WhisperProtocol

/// Abuse reports from users (docs/protocol.md "POST /reports"), top to bottom:
/// 1. REPORT rate limit per identity and IP → else `RATE_LIMITED`;
/// 2. reporting oneself → `INVALID_PAYLOAD`;
/// 3. with a `messageId`: `verified` when the reported identity really sent that message to
///    the reporter — the message's idempotency record (kept for the pending TTL, 72 h) names
///    its recipient, so a fabricated report cannot claim a message it never got;
/// 4. an open report is stored → its id; an unknown reported id → `NOT_FOUND`.
public final class ReportService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    public struct Filed: Sendable, Equatable {
        public let id: Int64
        public let verified: Bool
    }

    private let store: ReportStore
    private let messages: MessageStore
    private let rateLimiter: RateLimiter

    public init(store: ReportStore, messages: MessageStore, rateLimiter: RateLimiter) {
        self.store = store
        self.messages = messages
        self.rateLimiter = rateLimiter
    }

    public func file(_ report: ReportPayload, session: SessionRecord, client: ClientRef, completion: @escaping Completion<Filed>) {
        rateLimiter.check(.report, subjects: [.identity(session.whisperId.string), .ip(client.ip)]) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            guard report.whisperId != session.whisperId else {
                return completion(.failure(.invalidPayload(.invalidValue(field: "whisperId"))))
            }
            guard let messageId = report.messageId else { return store(report, session.whisperId, verified: false, completion) }
            messages.wasAccepted(messageId, from: report.whisperId, to: session.whisperId) { [self] proof in
                switch proof {
                case .failure(let error): completion(.failure(.storage(error)))
                case .success(let sent): store(report, session.whisperId, verified: sent, completion)
                }
            }
        }
    }

    private func store(_ report: ReportPayload, _ reporter: WhisperID, verified: Bool, _ completion: @escaping Completion<Filed>) {
        store.insert(report, reporter: reporter, verified: verified) { result in
            switch result {
            case .failure(let error): completion(.failure(.storage(error)))
            case .success(nil): completion(.failure(.notFound("unknown whisperId")))
            case .success(let id?): completion(.success(Filed(id: id, verified: verified)))
            }
        }
    }
}
