import WhisperOps

/// The drain scenario's phones on one loop: some of the senders and, on loop 0, the offline
/// recipient. Phases: register the recipient and let it go offline → log senders in →
/// pre-sign → fill its queue → (recipient) log back in and page the queue out. Loop thread only.
final class DrainShard: PhoneOwner {
    struct Plan: Sendable {
        var run: UInt32
        var streams: [UInt32]
        var shares: [Int]
        var inFlight: Int
        var ciphertextBytes: Int
        var page: Int
        var loginConcurrency: Int
        var stallSeconds: Double
    }

    let context: ShardContext
    let plan: Plan
    private var senders: [DrainSender] = []
    private var recipient: Phone?
    private var recipientId: String?
    private var fill = DrainFill()
    private var fillDone: ((DrainFill) -> Void)?
    private var fetch = DrainFetch()
    private var fetchStarted: UInt64 = 0
    private var fetchDone: ((DrainFetch) -> Void)?
    private var seen: [UInt32: SequenceSet] = [:]

    init(context: ShardContext, plan: Plan) {
        self.context = context
        self.plan = plan
    }

    // MARK: Recipient

    /// Registers a new identity and takes it offline again; answers its whisperId.
    func registerRecipient(completion: @escaping (Result<String, LoginFailure>) -> Void) {
        let phone = Phone(index: -1, identity: context.newIdentity())
        phone.owner = self
        recipient = phone
        context.logIn([phone], concurrency: 1) { [self] tally in
            guard tally.succeeded == 1, let id = phone.whisperId else {
                return completion(.failure(.refused(tally.failures.sorted.first?.label ?? "UNKNOWN")))
            }
            recipientId = id
            context.closeAll([phone]) { completion(.success(id)) }
        }
    }

    /// Logs the recipient back in (same phone, same keys) and pages its queue out, one
    /// `fetch_pending` in flight, each asking for the next cursor.
    func drain(completion: @escaping (DrainFetch) -> Void) {
        guard let recipient else {
            fetch.errors.add("no_recipient")
            return completion(fetch)
        }
        fetchDone = completion
        context.logIn([recipient], concurrency: 1) { [self] tally in
            guard tally.succeeded == 1 else {
                fetch.errors.merge(tally.failures)
                return finishFetch()
            }
            fetchStarted = MonotonicClock.now()
            requestPage(cursor: nil)
        }
    }

    private func requestPage(cursor: String?) {
        guard let recipient, let token = recipient.token,
              recipient.send(ClientFrames.fetchPending(requestId: "f", token: token, cursor: cursor, limit: plan.page))
        else {
            fetch.errors.add("fetch_not_connected")
            return finishFetch()
        }
    }

    private func recipientReceived(_ frame: ServerFrame) {
        switch frame.type {
        case "pending_messages":
            fetch.pages += 1
            for message in frame.payload["messages"]?.arrayValue ?? [] {
                fetch.messages += 1
                guard let text = message["messageId"]?.stringValue, let id = MessageID(text: text), id.run == plan.run else {
                    fetch.foreign += 1
                    continue
                }
                if seen[id.stream, default: SequenceSet()].insert(id.sequence) {
                    fetch.unique += 1
                } else {
                    fetch.duplicates += 1
                }
            }
            if let cursor = frame.string("nextCursor") { requestPage(cursor: cursor) } else { finishFetch() }
        case "error":
            fetch.errors.add(frame.errorCode ?? "UNKNOWN")
            finishFetch()
        default:
            break  // e.g. kept events after the login: not part of the drain
        }
    }

    private func finishFetch() {
        if fetchStarted > 0 { fetch.seconds = Double(MonotonicClock.now() - fetchStarted) / 1e9 }
        let done = fetchDone
        fetchDone = nil
        done?(fetch)
    }

    // MARK: Senders

    func connectSenders(recipientId: String, completion: @escaping (LoginTally) -> Void) {
        self.recipientId = recipientId
        for (index, stream) in plan.streams.enumerated() {
            let phone = Phone(index: index, identity: context.newIdentity())
            phone.owner = self
            senders.append(DrainSender(phone: phone, stream: stream, share: plan.shares[index]))
        }
        context.logIn(senders.map(\.phone), concurrency: plan.loginConcurrency, completion: completion)
    }

    func presign() -> Int {
        var signed = 0
        for sender in senders {
            for sequence in 0..<sender.share {
                guard let frame = makeFrame(sender, sequence: sequence) else { break }
                sender.outbox.append(frame)
                signed += 1
            }
        }
        return signed
    }

    private func makeFrame(_ sender: DrainSender, sequence: Int) -> [UInt8]? {
        guard let token = sender.phone.token, let from = sender.phone.whisperId, let to = recipientId else { return nil }
        let nonce = (0..<24).map { _ in UInt8.random(in: 0...255, using: &context.random) }
        let ciphertext = (0..<plan.ciphertextBytes).map { _ in UInt8.random(in: 0...255, using: &context.random) }
        let id = MessageID(run: plan.run, stream: sender.stream, sequence: UInt64(sequence))
        return ClientFrames.sendMessage(requestId: "s\(sequence)", token: token, messageId: id.text, from: from, to: to,
                                        timestamp: WallTime.now().epochMillis, nonce: nonce, ciphertext: ciphertext,
                                        signer: sender.phone.identity)
    }

    /// Sends every sender's share, `inFlight` unanswered at a time.
    func fillQueue(completion: @escaping (DrainFill) -> Void) {
        fillDone = completion
        let started = MonotonicClock.now()
        for sender in senders {
            for _ in 0..<plan.inFlight { sendNext(sender) }
        }
        var lastAnswered = -1, lastProgress = started
        func watch() {
            let now = MonotonicClock.now()
            fill.seconds = Double(now - started) / 1e9
            let answered = senders.reduce(0) { $0 + $1.answered }
            if senders.allSatisfy(\.isDone) { return finishFill() }
            if answered != lastAnswered { (lastAnswered, lastProgress) = (answered, now) }
            if now - lastProgress >= MonotonicClock.nanoseconds(plan.stallSeconds) {
                fill.stalled = true
                return finishFill()
            }
            context.loop.schedule(afterNanoseconds: 5_000_000) { watch() }
        }
        watch()
    }

    private func sendNext(_ sender: DrainSender) {
        guard sender.nextSequence < sender.share else { return }
        let sequence = sender.nextSequence
        let frame: [UInt8]
        if sequence < sender.outbox.count {
            frame = sender.outbox[sequence]
            sender.outbox[sequence] = []
        } else if let signed = makeFrame(sender, sequence: sequence) {
            frame = signed
        } else {
            return fill.errors.add("not_logged_in")
        }
        guard sender.phone.send(frame) else { return fill.errors.add("send_on_closed_socket") }
        sender.nextSequence += 1
        sender.inFlight += 1
        fill.sent += 1
    }

    private func finishFill() {
        let done = fillDone
        fillDone = nil
        done?(fill)
    }

    private func senderReceived(_ frame: ServerFrame, sender: DrainSender) {
        switch frame.type {
        case "message_accepted":
            sender.accepted += 1
            fill.accepted += 1
        case "error":
            fill.errors.add(frame.errorCode ?? "UNKNOWN")
            guard frame.requestId?.hasPrefix("s") == true else { return }
        case "presence":
            return  // the drained recipient going offline (docs/protocol.md "Presence"): not a reply
        default:
            return fill.errors.add("unexpected_\(frame.type)")
        }
        sender.inFlight -= 1
        sender.answered += 1
        sendNext(sender)
    }

    func closeAll(completion: @escaping () -> Void) {
        context.closeAll(senders.map(\.phone) + (recipient.map { [$0] } ?? []), completion: completion)
    }

    // MARK: PhoneOwner

    func phone(_ phone: Phone, didReceive frame: ServerFrame) {
        if phone === recipient { return recipientReceived(frame) }
        guard phone.index >= 0, phone.index < senders.count else { return }
        senderReceived(frame, sender: senders[phone.index])
    }

    func phone(_ phone: Phone, didEnd end: ClientEnd) {
        guard end != .closedByClient else { return }
        if phone === recipient {
            fetch.errors.add(end.label)
            finishFetch()
        } else {
            fill.errors.add(end.label)
        }
    }
}
