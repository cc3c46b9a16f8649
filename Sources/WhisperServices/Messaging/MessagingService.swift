import WhisperOps
import WhisperProtocol

/// 1:1 messaging (docs/protocol.md "Messaging (1:1)"): `send_message`, `fetch_pending` and
/// `delivery_receipt` — and `group_send_message` (docs/protocol.md "Groups"), which is the same send with a
/// membership check in step 4 (`MessagingService+Groups`). One instance per event loop; every
/// completion runs on that loop.
///
/// `send_message`, top to bottom (the payload was validated and the session checked by the
/// gateway; cheap checks come before the signature, which costs as much to reject as to
/// accept):
/// 1. `from` must be the session's identity → else `FORBIDDEN`;
/// 2. `timestamp` within ±10 min of server time → else `INVALID_TIMESTAMP`;
/// 3. Ed25519 over SHA-256 of the canonical bytes (docs/protocol.md "Canonical signing") with the sender's sign key,
///    which the session carries → else `AUTH_FAILED`;
/// 4. a group message: the group exists → else `NOT_FOUND`, sender and recipient are members →
///    else `FORBIDDEN`; then for every message: the recipient exists → else `NOT_FOUND`, and is
///    not banned → else `FORBIDDEN`;
/// 5. SEND rate limit per identity and per IP → else `RATE_LIMITED`, checked and charged as
///    the first part of step 6's script (one Redis round trip per message, not two);
/// 6. one atomic store step: (a group message: unless the membership changed since step 4,
///    which sends it back to step 4) unless the recipient blocked the sender (then: acked
///    as usual, nothing else) or (from, to, messageId) was seen, append to the recipient's
///    pending queue, record the direct peers, and route `message_received` to the
///    recipient's socket (on this node: written here; on another node: published) — and
///    only then the sender's `message_accepted`. A repeat gets the same ack and nothing else.
///    A group message's envelopes share one `messageId` and are charged one SEND hit
///    together (contract §15).
///    A recipient without a live socket gets a push wake-up (`WakeUps`, coalesced).
/// 7. a message carrying `attachment.objectKey`: its recipient is recorded as a reader of the
///    object if the sender uploaded it (`AttachmentRecorder`, after the ack is decided).
/// The message stays pending until the recipient's `delivery_receipt` (or the 72 h TTL).
public final class MessagingService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    /// How long a sender whose recipient's queue is full should wait before retrying.
    public static let queueFullRetryAfterMs: Int64 = 60_000

    /// The timestamp window and payload limits.
    private let limits: Limits
    private let store: MessageStore
    private let router: MessageRouter
    private let recipients: RecipientDirectory
    /// Group memberships (step 4 of a group message); nil: group messages are refused.
    let groups: GroupDirectory?
    private let rateLimiter: RateLimiter
    /// Told of every accepted message carrying an attachment (download rights); nil: attachments off.
    private let attachments: AttachmentRecorder?
    /// Push wake-ups for recipients without a live socket; nil: push is off.
    private let wakeUps: WakeUps?
    private let verifier: SignatureVerifier
    private let log: Log
    private let now: () -> Int64
    private let acceptedDirect: Counter?
    private let acceptedGroup: Counter?
    private let deliveredFromPending: Counter?
    private let replicationShortfall: Counter?

    public init(limits: Limits, store: MessageStore, router: MessageRouter, recipients: RecipientDirectory,
                groups: GroupDirectory? = nil, rateLimiter: RateLimiter, attachments: AttachmentRecorder? = nil,
                wakeUps: WakeUps? = nil, verifier: SignatureVerifier, log: Log, metrics: WhisperMetrics? = nil, now: @escaping () -> Int64) {
        self.limits = limits
        self.store = store
        self.router = router
        self.recipients = recipients
        self.groups = groups
        self.rateLimiter = rateLimiter
        self.attachments = attachments
        self.wakeUps = wakeUps
        self.verifier = verifier
        self.log = log
        self.now = now
        self.acceptedDirect = metrics?.messagesAccepted.labels("direct")
        self.acceptedGroup = metrics?.messagesAccepted.labels("group")
        self.deliveredFromPending = metrics?.messagesDelivered.labels("pending")
        self.replicationShortfall = metrics?.redisWaitShortfall
    }

    // MARK: send_message, group_send_message

    /// Answers success once the message is durably queued (or was before: a duplicate).
    public func send(_ message: SendMessagePayload, session: SessionRecord, client: ClientRef,
                     receivedAtMicros: Int64, completion: @escaping Completion<Void>) {
        if let refusal = verifier.refusal(from: message.from, timestamp: message.timestamp, signature: message.signature,
                                          signedBytes: message.signedBytes, session: session,
                                          skewMillis: limits.timestampSkewMillis, nowMillis: now()) {
            return completion(.failure(refusal))
        }

        if let groupId = message.groupId {
            return sendToGroup(groupId, message, receivedAtMicros: receivedAtMicros, client: client, attempt: 1, completion)
        }
        checkRecipient(message.to, completion) { [self] in
            accept(message, group: nil, receivedAtMicros: receivedAtMicros, client: client) { result in
                // Only a group stamp can be refused as stale.
                completion(result.flatMap { $0 ? .success(()) : .failure(.internalFailure("direct message refused as stale")) })
            }
        }
    }

    /// Step 4's recipient check; `then` runs only for an active recipient.
    func checkRecipient(_ recipient: WhisperID, _ completion: @escaping Completion<Void>, then: @escaping () -> Void) {
        recipients.status(of: recipient) { result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(.unknown):
                completion(.failure(.notFound("unknown recipient")))
            case .success(.banned):
                completion(.failure(.forbidden("recipient is banned")))
            case .success(.active):
                then()
            }
        }
    }

    /// Steps 5–6 in one Redis round trip: the rate limit is charged inside the accept script.
    /// Answers false (and nothing was charged or stored) when `group`'s epoch moved on.
    func accept(_ message: SendMessagePayload, group: GroupStamp?, receivedAtMicros: Int64, client: ClientRef,
                _ completion: @escaping Completion<Bool>) {
        let charge = rateLimiter.charge(.send, subjects: [.ip(client.ip), .identity(message.from.string)])
        let acceptance = MessageAcceptance(from: message.from, to: message.to, messageId: message.messageId,
                                           messageIdText: message.messageIdText, deliveryPayload: message.deliveryPayload, receivedAtMicros: receivedAtMicros,
                                           rateLimit: charge, group: group, wakeWindowMillis: wakeUps?.claimWindowMillis)
        store.accept(acceptance) { [self] result in
            settle(result, message, receivedAtMicros: receivedAtMicros, client: client, completion)
        }
    }

    /// Step 6's outcome: routed and answered. An outcome the replicas did not confirm is routed
    /// like the confirmed one (the primary has it), but answered `INTERNAL_ERROR`, so the sender
    /// retries the same envelope and the retry's duplicate is acknowledged once confirmed.
    private func settle(_ result: Result<AcceptOutcome, StoreError>, _ message: SendMessagePayload, receivedAtMicros: Int64,
                        client: ClientRef, _ completion: @escaping Completion<Bool>) {
        switch result {
        case .success(.unconfirmed(let outcome, let replicas)):
            replicationShortfall?.increment()
            // Not per message at info: no ids, so the line pairs nobody.
            log.info("redis_wait_shortfall", ["replicas": .int(replicas ?? -1)])
            settle(.success(outcome), message, receivedAtMicros: receivedAtMicros, client: client) { _ in }
            completion(.failure(.storage(.unavailable("replicas did not confirm the accept in time"))))
        case .failure(let error):
            completion(.failure(.storage(error)))
        case .success(.membershipChanged):
            completion(.success(false))
        case .success(.rateLimited(let retryAfterMs)):
            rateLimiter.refused(.send)
            completion(.failure(.rateLimited(retryAfterMs: max(1, retryAfterMs))))
        case .success(.queueFull):
            log.warn("pending_queue_full", whisperId: message.to.string, messageId: message.messageId.string)
            completion(.failure(.rateLimited(retryAfterMs: Self.queueFullRetryAfterMs)))
        case .success(.duplicate):
            debugLine("message_duplicate", message, client)
            completion(.success(true))
        case .success(.dropped):
            // Acknowledged as usual: the sender must not learn that it is blocked.
            debugLine("message_dropped_blocked", message, client)
            completion(.success(true))
        case .success(.accepted(_, let routing, let wakeClaimed)):
            (message.groupId == nil ? acceptedDirect : acceptedGroup)?.increment()
            switch routing {
            case .local(let route):
                router.deliver(MessageFrames.messageReceived(deliveryPayload: message.deliveryPayload), to: message.to,
                               at: route, kind: .message, receivedAtMicros: receivedAtMicros)
            case .offline:
                if wakeClaimed { wakeUps?.wakeClaimed(message.to) }
            case .remote:
                break
            }
            // After the accept, off the path of messages without attachments (docs/protocol.md "Attachments").
            if message.attachment != nil { attachments?.recordRecipient(of: message) }
            // Per-message lines pair a sender with a recipient: debug only (docs/security.md),
            // and their fields are built only when the level is on.
            if log.isEnabled(.debug) {
                log.debug("message_accepted", connId: client.connection.connection, whisperId: message.from.string,
                         messageId: message.messageId.string,
                         ["to": .string(message.to.string), "msgType": .string(message.kind.rawValue),
                          "ciphertextBytes": .int(message.ciphertextByteCount), "routing": .string(routing.logName),
                          "groupId": .string(message.groupId?.string ?? "")])
            }
            completion(.success(true))
        }
    }

    private func debugLine(_ event: StaticString, _ message: SendMessagePayload, _ client: ClientRef) {
        guard log.isEnabled(.debug) else { return }
        log.debug(event, connId: client.connection.connection, whisperId: message.from.string, messageId: message.messageId.string)
    }

    // MARK: fetch_pending

    /// A page of the session's pending queue after `request.cursor`, oldest first.
    public func fetchPending(_ request: FetchPendingPayload, session: SessionRecord, client: ClientRef,
                             completion: @escaping Completion<PendingPage>) {
        rateLimiter.check(.fetch, subjects: [.ip(client.ip), .identity(session.whisperId.string)]) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            store.fetch(session.whisperId, after: request.cursor, limit: request.limit) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(let page):
                    deliveredFromPending?.increment(by: UInt64(page.messages.count))
                    completion(.success(page))
                }
            }
        }
    }

    // MARK: delivery_receipt

    /// Applies the receipt and tells the sender (`message_delivered`), now or after its next
    /// login (woken by a push).
    public func receipt(_ receipt: DeliveryReceiptPayload, session: SessionRecord, client: ClientRef,
                        completion: @escaping Completion<Void>) {
        guard receipt.from == session.whisperId else {
            return completion(.failure(.forbidden("from is not the session's whisperId")))
        }
        let notification = MessageFrames.messageDeliveredParts(from: receipt.from, status: receipt.status, timestamp: receipt.timestamp)
        let application = ReceiptApplication(recipient: receipt.from, sender: receipt.to, messageId: receipt.messageId,
                                             messageIdText: receipt.messageIdText, status: receipt.status, notification: notification)
        store.applyReceipt(application) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(.unknown):
                completion(.failure(.notFound("unknown message")))
            case .success(.applied(let removed, let routing, let spelt)):
                switch routing {
                case .local(let route):
                    let frame = MessageFrames.messageDelivered(messageIdText: spelt, from: receipt.from, status: receipt.status,
                                                               timestamp: receipt.timestamp)
                    router.deliver(frame, to: receipt.to, at: route, kind: .event, receivedAtMicros: 0)
                case .offline: wakeUps?.wake(receipt.to)  // the event was kept for its next login
                case .remote: break
                }
                if log.isEnabled(.debug) {
                    log.debug("message_receipt", connId: client.connection.connection, whisperId: receipt.from.string,
                             messageId: receipt.messageId.string,
                             ["to": .string(receipt.to.string), "status": .string(receipt.status.rawValue),
                              "removed": .bool(removed), "routing": .string(routing.logName)])
                }
                completion(.success(()))
            }
        }
    }
}

extension Routing {
    var logName: String {
        switch self {
        case .local: return "local"
        case .remote: return "remote"
        case .offline: return "offline"
        }
    }
}
