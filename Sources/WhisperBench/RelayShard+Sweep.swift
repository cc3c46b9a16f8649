import WhisperProtocol

/// The final sweep: after settling, every recipient pages through its pending queue, as an
/// app does after a reconnect. A message found there that never arrived live is recovered,
/// not lost; only what is in neither place is lost.
extension RelayShard {
    static let sweepPageSize = 200
    static let sweepConcurrency = 32

    func sweep(completion: @escaping () -> Void) {
        let queue = JobQueue(limit: Self.sweepConcurrency)
        for pair in pairs {
            queue.add { [self] done in
                pair.sweepDone = done
                requestPage(pair, cursor: nil)
            }
        }
        queue.whenDrained(completion)
    }

    private func requestPage(_ pair: RelayPair, cursor: String?) {
        guard let token = pair.recipient.token,
              pair.recipient.send(ClientFrames.fetchPending(requestId: "f", token: token, cursor: cursor,
                                                            limit: Self.sweepPageSize))
        else {
            errors.add("sweep_not_connected")
            return finishSweep(pair)
        }
    }

    func sweepPage(_ frame: ServerFrame, pair: RelayPair) {
        for message in frame.payload["messages"]?.arrayValue ?? [] {
            guard let text = message["messageId"]?.stringValue, let id = MessageID(text: text),
                  id.run == plan.run, id.stream == pair.stream else { continue }
            if pair.received.insert(id.sequence) {
                counters.recoveredBySweep += 1
                if pair.accepted.contains(id.sequence) { pair.awaitingLive -= 1 }
            } else {
                counters.pendingAfterSettle += 1
            }
        }
        if let cursor = frame.string("nextCursor") {
            requestPage(pair, cursor: cursor)
        } else {
            finishSweep(pair)
        }
    }

    func finishSweep(_ pair: RelayPair) {
        let done = pair.sweepDone
        pair.sweepDone = nil
        done?()
    }
}
