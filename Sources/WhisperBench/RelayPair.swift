/// One sender and its peer, on the same loop so that the recipient can look up when the
/// sender sent a message (latency) without crossing threads. Their sockets are separate
/// connections to the server like any two phones. Loop thread only.
final class RelayPair {
    /// The pair's global number: the `stream` of its message ids.
    let stream: UInt32
    let sender: Phone
    let recipient: Phone
    /// Group mode: the group the sender and recipient are in (set once it is created).
    var groupId: String?
    /// Pre-signed `send_message` frames, by sequence; emptied as they are sent.
    var outbox: [[UInt8]] = []
    var nextSequence: UInt64 = 0
    /// Sent and not yet answered (by `message_accepted` or an error).
    var inFlight = 0
    /// When each message still being tracked was sent (intended time in the open loop).
    var sendTimes: [UInt64: UInt64] = [:]
    var accepted = SequenceSet()
    var received = SequenceSet()
    var receipted = SequenceSet()
    var delivered = SequenceSet()
    /// Accepted but not yet received.
    var awaitingLive = 0
    /// Receipts sent and not yet answered.
    var receiptsOutstanding = 0
    /// Ends the final sweep of this pair's recipient.
    var sweepDone: (() -> Void)?

    init(stream: UInt32, sender: Phone, recipient: Phone) {
        self.stream = stream
        self.sender = sender
        self.recipient = recipient
    }

    /// Nothing of this pair is still on its way.
    var isSettled: Bool {
        inFlight == 0 && receiptsOutstanding == 0 && awaitingLive == 0 && delivered.count >= receipted.count
    }
}
