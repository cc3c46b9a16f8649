import WhisperOps

/// The sending side: building signed frames, the closed loop (K unanswered per sender) and
/// the open loop (a fixed total rate).
extension RelayShard {
    /// A signed `send_message` from the pair's sender to its recipient (a `group_send_message`
    /// envelope in group mode); nil before login.
    func makeFrame(_ pair: RelayPair, sequence: UInt64) -> [UInt8]? {
        guard let token = pair.sender.token, let from = pair.sender.whisperId, let to = pair.recipient.whisperId
        else { return nil }
        let nonce = (0..<24).map { _ in UInt8.random(in: 0...255, using: &context.random) }
        let ciphertext = (0..<plan.ciphertextBytes).map { _ in UInt8.random(in: 0...255, using: &context.random) }
        let id = MessageID(run: plan.run, stream: pair.stream, sequence: sequence)
        return ClientFrames.sendMessage(requestId: Self.sendRequestId(stream: pair.stream, sequence: sequence), token: token,
                                        messageId: id.text, from: from, to: to, groupId: pair.groupId,
                                        timestamp: WallTime.now().epochMillis, nonce: nonce, ciphertext: ciphertext,
                                        signer: pair.sender.identity)
    }

    /// `s<stream>.<sequence>`: an error answering a send names the message it refused.
    static func sendRequestId(stream: UInt32, sequence: UInt64) -> String { "s\(stream).\(sequence)" }

    static func sendRequest(_ requestId: String) -> (stream: UInt32, sequence: UInt64)? {
        guard requestId.hasPrefix("s"), let dot = requestId.firstIndex(of: "."),
              let stream = UInt32(requestId[requestId.index(after: requestId.startIndex)..<dot]),
              let sequence = UInt64(requestId[requestId.index(after: dot)...]) else { return nil }
        return (stream, sequence)
    }

    /// Sends the pair's next message; `time` is when it counts as sent (the intended time in
    /// the open loop, so a stalled server cannot hide its delay: no coordinated omission).
    func send(_ pair: RelayPair, at time: UInt64) {
        let sequence = pair.nextSequence
        let frame: [UInt8]
        if sequence < UInt64(pair.outbox.count) {
            frame = pair.outbox[Int(sequence)]
            pair.outbox[Int(sequence)] = []
        } else if let signed = makeFrame(pair, sequence: sequence) {
            frame = signed
            counters.signedLive += 1
        } else {
            return errors.add("not_logged_in")
        }
        guard pair.sender.send(frame) else { return errors.add("send_on_closed_socket") }
        pair.nextSequence += 1
        pair.sendTimes[sequence] = time
        pair.inFlight += 1
        counters.sent += 1
        if window.contains(time) { counters.sentInWindow += 1 }
    }

    /// Closed loop: an answered send makes room for the next, until the window ends.
    func sendAnother(_ pair: RelayPair, now: UInt64) {
        guard plan.rate == nil, now < window.windowEnd else { return }
        send(pair, at: now)
    }

    /// Open loop: at each send's intended time, issue the sends that are due since the
    /// start, round robin over this shard's senders.
    func tickOpenLoop() {
        guard openLoop != nil, !pairs.isEmpty else { return }
        let wait = openLoop?.issueDue(now: MonotonicClock.now(), in: window) { k, intended in
            let pair = pairs[Int(k % UInt64(pairs.count))]
            if pair.inFlight >= Self.openLoopMaxInFlight {
                counters.skippedBackpressure += 1
            } else {
                send(pair, at: intended)
            }
        }
        if let wait { context.loop.schedule(afterNanoseconds: wait) { [self] in tickOpenLoop() } }
    }
}
