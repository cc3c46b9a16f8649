import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Accepts and receipts on a Redis Cluster, in steps of one slot each (`MessageStepScripts`
/// says why each step is safe to repeat). The outcomes are the single script's, so the service
/// cannot tell the two apart.
extension RedisMessageStore {
    /// The charges (the sender's step, one step per other rate-limited subject and, for a group
    /// message, the epoch read) in one round trip, then the recipient's step. A stale epoch is
    /// seen after the charges: the retry under the new epoch is not charged again (a group
    /// message's per-subject marks), and direct messages have no epoch.
    func acceptInSteps(_ message: MessageAcceptance, completion: @escaping StoreCompletion<AcceptOutcome>) {
        chargeInSteps(message) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(let refusal?): completion(.success(refusal))
            case .success(nil): storeForRecipient(message, completion: completion)
            }
        }
    }

    /// The first round trip of an accept: nil when every charge passed (and the epoch holds).
    /// Every step is written straight into its command: this runs for every message.
    package func chargeInSteps(_ message: MessageAcceptance, completion: @escaping StoreCompletion<AcceptOutcome?>) {
        let subjects = ChargeSubjects(message.rateLimit.buckets, user: message.from)
        let charges = StepJoin<AcceptOutcome>(steps: 1 + subjects.others.count + (message.group == nil ? 0 : 1),
                                              prefer: Self.prefer, done: completion)
        let senderCall = RedisScriptCall(MessageStepScripts.sender, capacity: 384, keys: { command in
            command.write(MessageStepScripts.SenderKey.self) { name, command in
                switch name {
                case .mark:
                    // Unread for a direct message: any key of the sender's slot.
                    guard let group = message.group else { return keys.peers(message.from, into: &command) }
                    keys.groupCharge(from: message.from, groupId: group.groupId, id: message.messageId, into: &command)
                case .peers: keys.peers(message.from, into: &command)
                }
            }
            subjects.writeKeys(of: nil, keys, into: &command)
        }, arguments: { command in
            command.write(MessageStepScripts.SenderArgument.self) { name, command in
                switch name {
                case .hit: command.append(message.rateLimit.nonce)
                case .to: command.append(message.to.string)
                case .peerTTL: command.append(settings.peerTTLMillis)
                case .markTTL: command.append(settings.pendingTTLMillis)
                case .marked: command.append(message.group == nil ? "0" : "1")
                }
            }
            subjects.writeLimits(of: nil, into: &command)
        })
        // One reader for every charge step: they all answer alike.
        let charged: (Result<RedisReply, RedisError>) -> Void = { charges.step(Self.charged($0, limited: AcceptOutcome.rateLimited)) }
        redis.evalScript(senderCall, retryOnce: true, reading: charged)
        for subject in subjects.others {
            Self.chargeSubject(redis, keys, subject, of: subjects, nonce: message.rateLimit.nonce,
                               group: message.group.map { ($0.groupId, message.messageId) }, markTTLMillis: settings.pendingTTLMillis,
                               completion: charged)
        }
        if let group = message.group {
            var command = RedisCommand(capacity: 96)
            command.append("GET")
            keys.groupEpoch(group.groupId, into: &command)
            redis.send(command, reading: { result in
                charges.step(RedisReplies.plain(result) { reply -> AcceptOutcome?? in
                    .some((reply.string ?? GroupScripts.noEpoch) == group.epoch ? nil : .membershipChanged)
                })
            })
        }
    }

    /// Of two refusals: a stale epoch (the retry is free), else the longest wait.
    private static func prefer(_ one: AcceptOutcome, _ other: AcceptOutcome) -> AcceptOutcome {
        switch (one, other) {
        case (.membershipChanged, _): one
        case (.rateLimited(let a), .rateLimited(let b)): a >= b ? one : other
        default: other
        }
    }

    /// The recipient's step, then — when the route names another node — the publish to it.
    private func storeForRecipient(_ message: MessageAcceptance, completion: @escaping StoreCompletion<AcceptOutcome>) {
        let call = RedisScriptCall(MessageStepScripts.recipient, capacity: 512 + message.deliveryPayload.count, keys: { command in
            command.write(MessageStepScripts.RecipientKey.self) { name, command in
                switch name {
                case .record: keys.message(to: message.to, from: message.from, id: message.messageId, into: &command)
                case .pending: keys.pending(message.to, into: &command)
                case .peers: keys.peers(message.to, into: &command)
                case .pendingCount: keys.pendingCount(of: message.to, into: &command)
                case .pendingIndex: keys.pendingIndex(of: message.to, into: &command)
                case .blocked: keys.blocked(message.to, into: &command)
                case .route: keys.route(message.to, into: &command)
                case .pushWake: keys.pushWake(message.to, into: &command)
                }
            }
        }, arguments: { command in
            command.write(MessageStepScripts.RecipientArgument.self) { name, command in
                switch name {
                case .to: command.append(message.to.string)
                case .from: command.append(message.from.string)
                case .payload: command.append(message.deliveryPayload)
                case .pendingTTL: command.append(settings.pendingTTLMillis)
                case .peerTTL: command.append(settings.peerTTLMillis)
                case .maxPending: command.append(settings.maxPendingPerUser)
                case .spelt: command.append(message.messageIdText)
                case .wakeWindow: command.append(message.wakeWindowMillis ?? 0)
                }
            }
        })
        guard let replicaWait else {
            return redis.evalScript(call, retryOnce: true, reading: { [self] result in
                switch recipientOutcome(result) {
                case .success(let stored): route(message, stored.outcome, to: stored.remote, completion: completion)
                case .failure(let error): completion(.failure(error))
                }
            })
        }
        redis.evalScript(call, retryOnce: true, then: replicaWait, reading: recipientOutcome) { [self] stored, replicas in
            switch stored {
            case .success(let stored):
                route(message, Self.confirmed(stored.outcome, replicas: replicas, wanted: replicaWait.replicas), to: stored.remote,
                      completion: completion)
            case .failure(let error): completion(.failure(error))
            }
        }
    }

    /// Routed like the single script routes: another node's socket gets the frame by publish.
    private func route(_ message: MessageAcceptance, _ outcome: AcceptOutcome, to remote: LiveRoute?,
                       completion: @escaping StoreCompletion<AcceptOutcome>) {
        guard let remote else { return completion(.success(outcome)) }
        router.publish(MessageFrames.messageReceived(deliveryPayload: message.deliveryPayload), to: message.to, at: remote,
                       kind: "m", receivedAtMicros: message.receivedAtMicros) { [self] received in
            if received { return completion(.success(outcome)) }
            claimWake(message) { woke in completion(.success(Self.offline(outcome, wakeClaimed: woke))) }
        }
    }

    /// What the recipient's step answered: the outcome, and the route when it names another node.
    private func recipientOutcome(_ result: Result<RedisReply, RedisError>) -> Result<(outcome: AcceptOutcome, remote: LiveRoute?), StoreError> {
        let router = router
        return RedisReplies.tagged(result) { status, reply -> (outcome: AcceptOutcome, remote: LiveRoute?)? in
            switch status {
            case 1: return (.duplicate, nil)
            case 2: return (.queueFull, nil)
            case 5: return (.dropped, nil)
            default:
                guard reply.count == 4, let cursor = reply[1]?.string.flatMap(PendingCursor.init),
                      let where_ = reply[2]?.string, let woke = reply[3]?.integer
                else { return nil }
                guard let routed = router.local(where_) else { return nil }
                return (.accepted(cursor: cursor, routing: routed.routing ?? .remote, wakeClaimed: woke == 1), routed.remote)
            }
        }
    }

    /// A remote routing that reached nobody (that node died or its subscriber is reconnecting)
    /// is offline, as inside the single script.
    private static func offline(_ outcome: AcceptOutcome, wakeClaimed: Bool) -> AcceptOutcome {
        switch outcome {
        case .accepted(let cursor, .remote, _): .accepted(cursor: cursor, routing: .offline, wakeClaimed: wakeClaimed)
        case .unconfirmed(let inner, let replicas): .unconfirmed(offline(inner, wakeClaimed: wakeClaimed), replicas: replicas)
        default: outcome
        }
    }

    /// The push window claim the recipient's step makes for an offline recipient (`SET NX PX`).
    private func claimWake(_ message: MessageAcceptance, completion: @escaping (Bool) -> Void) {
        guard let window = message.wakeWindowMillis, window > 0 else { return completion(false) }
        redis.send([Array("SET".utf8), keys.pushWake(message.to), Array("1".utf8), Array("NX".utf8), Array("PX".utf8),
                    Self.text(window)]) { result in
            guard case .success(.status) = result else { return completion(false) }
            completion(true)
        }
    }

    // MARK: Receipts

    /// The recipient's step (the record, the queue), then the sender's (`message_delivered`,
    /// routed or kept). A cut between them loses no notice: the client retries a receipt
    /// whose answer it did not get, and every `delivered` receipt tells the sender again.
    func applyReceiptInSteps(_ receipt: ReceiptApplication, completion: @escaping StoreCompletion<ReceiptOutcome>) {
        receiptForRecipient(receipt) { [self] applied in
            switch applied {
            case .failure(let error): completion(.failure(error))
            case .success(.unknown): completion(.success(.unknown))
            case .success(.applied(let removed, let spelt)):
                var frame = receipt.notification.head
                frame.reserveCapacity(frame.count + spelt.utf8.count + receipt.notification.tail.count)
                frame.append(contentsOf: spelt.utf8)
                frame.append(contentsOf: receipt.notification.tail)
                router.deliverEvent(frame, to: receipt.sender) { routing in
                    completion(routing.map { .applied(removed: removed, routing: $0, messageIdText: spelt) })
                }
            }
        }
    }

    /// What the recipient's step of a receipt found.
    package enum RecipientReceipt: Equatable {
        case unknown
        /// `removed`: a `delivered` receipt took the message out of the queue now; `spelt`:
        /// the messageId as its sender spelt it.
        case applied(removed: Bool, spelt: String)
    }

    /// The recipient's step of a receipt.
    package func receiptForRecipient(_ receipt: ReceiptApplication, completion: @escaping StoreCompletion<RecipientReceipt>) {
        let call = RedisScriptCall(MessageStepScripts.receipt, capacity: 256, keys: { command in
            command.write(MessageStepScripts.ReceiptKey.self) { name, command in
                switch name {
                case .record: keys.message(to: receipt.recipient, from: receipt.sender, id: receipt.messageId, into: &command)
                case .pending: keys.pending(receipt.recipient, into: &command)
                case .pendingCount: keys.pendingCount(of: receipt.recipient, into: &command)
                }
            }
        }, arguments: { command in
            command.write(MessageStepScripts.ReceiptArgument.self) { name, command in
                switch name {
                case .status: command.append(receipt.status.rawValue)
                }
            }
        })
        redis.evalScript(call, retryOnce: true, reading: { result in
            completion(RedisReplies.tagged(result) { status, reply -> RecipientReceipt? in
                if status == 0 { return .unknown }
                guard status == 1, reply.count == 3, let removed = reply[1]?.integer, let spelt = reply[2]?.string else { return nil }
                return .applied(removed: removed > 0, spelt: spelt)
            })
        })
    }
}

/// Steps sent in one round trip, joined: the first failure, else the refusal `prefer` keeps
/// of those answered, else nil (every step passed).
final class StepJoin<Refusal> {
    private var remaining: Int
    private var refusal: Refusal?
    private var failure: StoreError?
    private let prefer: (Refusal, Refusal) -> Refusal
    private let done: (Result<Refusal?, StoreError>) -> Void

    init(steps: Int, prefer: @escaping (Refusal, Refusal) -> Refusal, done: @escaping (Result<Refusal?, StoreError>) -> Void) {
        remaining = steps
        self.prefer = prefer
        self.done = done
    }

    func step(_ result: Result<Refusal?, StoreError>) {
        switch result {
        case .failure(let error): failure = failure ?? error
        case .success(let answer?): refusal = refusal.map { prefer($0, answer) } ?? answer
        case .success(nil): break
        }
        remaining -= 1
        guard remaining == 0 else { return }
        if let failure { return done(.failure(failure)) }
        done(.success(refusal))
    }
}

extension RedisMessageStore {
    /// A charge step's reply: `{0}` passed, `{3, wait}` rate limited, or another status `other` maps.
    static func charged<Refusal>(_ result: Result<RedisReply, RedisError>, limited: (Int64) -> Refusal,
                                 other: (Int64) -> Refusal? = { _ in nil }) -> Result<Refusal?, StoreError> {
        RedisReplies.tagged(result) { status, reply -> Refusal?? in
            switch status {
            case 0: return .some(nil)
            case 3: return reply.count == 2 ? reply[1]?.integer.map(limited) : nil
            default: return other(status).map { .some($0) }
            }
        }
    }

    /// The SEND (or TYPING) charge of `subject`, one of `subjects.others` (the client's address),
    /// with a group message's mark in that subject's slot.
    static func chargeSubject(_ redis: RedisClient, _ keys: RedisKeys, _ subject: String, of subjects: ChargeSubjects,
                              nonce: String, group: (groupId: GroupID, messageId: CanonicalUUID)?, markTTLMillis: Int64,
                              completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        let call = RedisScriptCall(MessageStepScripts.address, capacity: 256, keys: { command in
            command.write(MessageStepScripts.AddressKey.self) { name, command in
                switch name {
                case .mark:
                    // Unread for a direct message: any key of the subject's slot.
                    guard let group else { return subjects.writeFirstKey(of: subject, keys, into: &command) }
                    keys.groupCharge(tag: RedisKeys.rateLimitTag(subject), groupId: group.groupId, id: group.messageId, into: &command)
                }
            }
            subjects.writeKeys(of: subject, keys, into: &command)
        }, arguments: { command in
            command.write(MessageStepScripts.AddressArgument.self) { name, command in
                switch name {
                case .hit: command.append(nonce)
                case .markTTL: command.append(markTTLMillis)
                case .marked: command.append(group == nil ? "0" : "1")
                }
            }
            subjects.writeLimits(of: subject, into: &command)
        })
        redis.evalScript(call, retryOnce: true, reading: completion)
    }
}
