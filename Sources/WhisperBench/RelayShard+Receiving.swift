import WhisperOps

/// The receiving side: what senders and recipients do with each server frame.
extension RelayShard {
    func senderReceived(_ frame: ServerFrame, pair: RelayPair) {
        let now = MonotonicClock.now()
        switch frame.type {
        case "message_accepted":
            guard let sequence = ownSequence(frame, pair) else { return }
            guard pair.accepted.insert(sequence) else { counters.duplicateAcks += 1; return }
            pair.inFlight -= 1
            counters.accepted += 1
            if window.contains(now) { counters.acceptedInWindow += 1 }
            if let sent = pair.sendTimes[sequence], window.contains(sent) {
                acceptLatency.record(nanoseconds: now &- sent)
                if plan.recordsSeries { acceptSeries.record(sentAt: sent, windowStart: window.windowStart, nanoseconds: now &- sent) }
            }
            if pair.received.contains(sequence) {
                pair.sendTimes[sequence] = nil
            } else {
                pair.awaitingLive += 1
            }
            sendAnother(pair, now: now)
        case "message_delivered":
            guard let sequence = ownSequence(frame, pair) else { return }
            guard pair.delivered.insert(sequence) else { counters.duplicateDelivered += 1; return }
            counters.delivered += 1
            if window.contains(now) { counters.deliveredInWindow += 1 }
        case "error":
            errors.add(frame.errorCode ?? "UNKNOWN")
            // A refused send still frees its slot in the closed loop.
            if let sequence = frame.requestId.flatMap(Self.sendRequest)?.sequence {
                pair.inFlight -= 1
                pair.sendTimes[sequence] = nil
                counters.sendErrors += 1
                sendAnother(pair, now: now)
            }
        case "presence":
            break  // a peer came or went (docs/protocol.md "Presence"): not part of the relay
        default:
            errors.add("unexpected_\(frame.type)")
        }
    }

    func recipientReceived(_ frame: ServerFrame, pair: RelayPair) {
        let now = MonotonicClock.now()
        switch frame.type {
        case "message_received":
            guard let sequence = ownSequence(frame, pair), let messageId = frame.string("messageId") else { return }
            if pair.received.insert(sequence) {
                counters.received += 1
                if window.contains(now) { counters.receivedInWindow += 1 }
                if let sent = pair.sendTimes[sequence], window.contains(sent) {
                    receiveLatency.record(nanoseconds: now &- sent)
                }
                if pair.accepted.contains(sequence) {
                    pair.sendTimes[sequence] = nil
                    pair.awaitingLive -= 1
                }
            } else {
                counters.duplicates += 1
            }
            // A phone acknowledges whatever it got, a duplicate too.
            sendReceipt(messageId: messageId, sequence: sequence, pair: pair)
        case "receipt_accepted":
            pair.receiptsOutstanding -= 1
            if let sequence = ownSequence(frame, pair), pair.receipted.insert(sequence) {
                counters.receiptsAccepted += 1
                if window.contains(now) { counters.receiptsAcceptedInWindow += 1 }
            }
        case "pending_messages":
            sweepPage(frame, pair: pair)
        case "error":
            errors.add(frame.errorCode ?? "UNKNOWN")
            if frame.requestId?.hasPrefix("r") == true {
                pair.receiptsOutstanding -= 1
                counters.receiptErrors += 1
            } else if frame.requestId == "f" {
                finishSweep(pair)
            }
        case "presence", "group_event":
            break  // a peer came or went, or was put in the bench's group: not part of the relay
        default:
            errors.add("unexpected_\(frame.type)")
        }
    }

    private func sendReceipt(messageId: String, sequence: UInt64, pair: RelayPair) {
        guard let token = pair.recipient.token, let from = pair.recipient.whisperId, let to = pair.sender.whisperId
        else { return }
        let receipt = ClientFrames.deliveryReceipt(requestId: "r\(sequence)", token: token, messageId: messageId,
                                                   from: from, to: to, timestamp: WallTime.now().epochMillis)
        guard pair.recipient.send(receipt) else { return errors.add("receipt_on_closed_socket") }
        pair.receiptsOutstanding += 1
    }

    /// The sequence of a frame about one of this pair's messages; anything else is counted.
    func ownSequence(_ frame: ServerFrame, _ pair: RelayPair) -> UInt64? {
        guard let id = frame.messageID, id.run == plan.run, id.stream == pair.stream else {
            errors.add("foreign_message_id")
            return nil
        }
        return id.sequence
    }
}
