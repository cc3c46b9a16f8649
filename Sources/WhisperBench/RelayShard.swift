import WhisperOps

/// The relay scenario's pairs on one loop, and the phases the orchestrator walks them
/// through: connect → pre-sign → start → settle → sweep → result → close. Loop thread only;
/// the orchestrator reaches it through `LoopBound`.
final class RelayShard: PhoneOwner {
    struct Plan: Sendable {
        var run: UInt32
        /// Global pair numbers this shard plays.
        var streams: [UInt32]
        /// Group mode: recipients per group; each run of this many streams is one group,
        /// sharing one sender.
        var groupRecipients: Int?
        var inFlight: Int
        /// Open loop: this shard's share of the target rate, messages per second.
        var rate: Double?
        var ciphertextBytes: Int
        var loginConcurrency: Int
        /// Keep every sample for the latency-over-time series.
        var recordsSeries = false
    }

    let context: ShardContext
    let plan: Plan
    var pairs: [RelayPair] = []
    /// Every phone once (a group's sender plays many pairs).
    var phones: [Phone] = []
    /// Group mode: where each stream's pair is, for frames reaching a shared sender.
    var pairIndexByStream: [UInt32: Int] = [:]
    /// Group mode: each group's sender and the range of `pairs` it plays.
    var groups: [(sender: Phone, pairs: Range<Int>)] = []
    /// Group mode, while `createGroups` runs: groups not yet created, and whom to tell.
    var groupCreation: (remaining: Int, completion: (String?) -> Void)?
    var window = RelayWindow(start: .max, windowStart: .max, windowEnd: .max)
    var counters = RelayCounters()
    var errors = ErrorTally()
    var acceptLatency = LatencyRecorder()
    var acceptSeries = LatencySeries()
    var receiveLatency = LatencyRecorder()
    /// Open loop: its schedule (nil: closed loop).
    lazy var openLoop: OpenLoop? = plan.rate.map(OpenLoop.init)
    /// Open loop: at most this many unanswered sends per sender before skipping.
    static let openLoopMaxInFlight = 1_000

    init(context: ShardContext, plan: Plan) {
        self.context = context
        self.plan = plan
    }

    // MARK: Phases

    /// Logs every sender and recipient in (new identities). A group's sender has a negative
    /// index, `-1 - group`, since it plays many pairs.
    func connect(completion: @escaping (LoginTally) -> Void) {
        var sender: Phone?
        for (index, stream) in plan.streams.enumerated() {
            if let perGroup = plan.groupRecipients {
                if index % perGroup == 0 {
                    let groupSender = Phone(index: -1 - groups.count, identity: context.newIdentity())
                    groups.append((groupSender, index..<min(index + perGroup, plan.streams.count)))
                    phones.append(groupSender)
                    sender = groupSender
                }
                pairIndexByStream[stream] = index
            } else {
                let own = Phone(index: index, identity: context.newIdentity())
                phones.append(own)
                sender = own
            }
            guard let sender else { continue }
            let recipient = Phone(index: index, identity: context.newIdentity())
            pairs.append(RelayPair(stream: stream, sender: sender, recipient: recipient))
            phones.append(recipient)
        }
        for phone in phones { phone.owner = self }
        context.logIn(phones, concurrency: plan.loginConcurrency, completion: completion)
    }

    /// Signs `perSender` messages for every sender ahead of the run; answers how many.
    func presign(perSender: Int) -> Int {
        var signed = 0
        for pair in pairs {
            pair.outbox.reserveCapacity(perSender)
            for sequence in 0..<UInt64(perSender) {
                guard let frame = makeFrame(pair, sequence: sequence) else { break }
                pair.outbox.append(frame)
                signed += 1
            }
        }
        return signed
    }

    /// Arms the run: sending begins at `window.start` and stops at `window.windowEnd`.
    func start(_ window: RelayWindow) {
        self.window = window
        let now = MonotonicClock.now()
        let delay = window.start > now ? window.start - now : 0
        context.loop.schedule(afterNanoseconds: delay) { [self] in
            if plan.rate != nil {
                tickOpenLoop()
            } else {
                let now = MonotonicClock.now()
                for pair in pairs {
                    for _ in 0..<plan.inFlight { send(pair, at: now) }
                }
            }
        }
    }

    /// Waits until nothing is in flight (every ack, delivery and receipt has come back), or
    /// the timeout; answers whether everything settled.
    func settle(timeoutSeconds: Double, completion: @escaping (Bool) -> Void) {
        let deadline = MonotonicClock.now() + MonotonicClock.nanoseconds(timeoutSeconds)
        func check() {
            if pairs.allSatisfy(\.isSettled) { return completion(true) }
            if MonotonicClock.now() >= deadline { return completion(false) }
            context.loop.schedule(afterNanoseconds: 10_000_000) { check() }
        }
        check()
    }

    func result() -> RelayShardResult {
        var lost = 0, unacknowledged = 0
        for pair in pairs {
            lost += pair.accepted.countMissing(from: pair.received)
            unacknowledged += pair.received.countMissing(from: pair.accepted)
        }
        return RelayShardResult(counters: counters, errors: errors, acceptLatency: acceptLatency, acceptSeries: acceptSeries,
                                receiveLatency: receiveLatency, lost: lost, unacknowledgedReceived: unacknowledged)
    }

    func closeAll(completion: @escaping () -> Void) {
        context.closeAll(phones, completion: completion)
    }

    // MARK: PhoneOwner

    func phone(_ phone: Phone, didReceive frame: ServerFrame) {
        if phone.index < 0 { return groupSenderReceived(frame, group: -1 - phone.index) }
        guard phone.index < pairs.count else { return }
        let pair = pairs[phone.index]
        if phone === pair.sender {
            senderReceived(frame, pair: pair)
        } else {
            recipientReceived(frame, pair: pair)
        }
    }

    func phone(_ phone: Phone, didEnd end: ClientEnd) {
        // Our own closes at the end are expected; anything else lost a phone mid-run.
        if end != .closedByClient { errors.add(end.label) }
    }
}
