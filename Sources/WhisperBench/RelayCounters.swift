/// Event counts of a relay run; each shard keeps its own and they are summed at the end.
public struct RelayCounters: Sendable, Equatable {
    /// `send_message` frames written, in total and in the window.
    public var sent = 0, sentInWindow = 0
    /// `message_accepted` (new ids only).
    public var accepted = 0, acceptedInWindow = 0
    /// `message_received` at the recipient (new ids only).
    public var received = 0, receivedInWindow = 0
    /// `receipt_accepted` at the recipient (new ids only).
    public var receiptsAccepted = 0, receiptsAcceptedInWindow = 0
    /// `message_delivered` at the sender: a completed relay (send, ack, delivery, receipt).
    public var delivered = 0, deliveredInWindow = 0
    /// `message_received` for an id already received.
    public var duplicates = 0
    /// A second `message_accepted` / `message_delivered` for one id (not an error: noted).
    public var duplicateAcks = 0, duplicateDelivered = 0
    /// Error replies to sends and receipts (also in the error tally by code).
    public var sendErrors = 0, receiptErrors = 0
    /// Found by the final `fetch_pending` sweep and not received live before.
    public var recoveredBySweep = 0
    /// Still in a pending queue after settling although received (a receipt not applied).
    public var pendingAfterSettle = 0
    /// Messages signed during the run because the pre-signed supply ran out.
    public var signedLive = 0
    /// Open loop: sends skipped because a sender already had too many unanswered.
    public var skippedBackpressure = 0

    public init() {}

    static func += (lhs: inout RelayCounters, rhs: RelayCounters) {
        lhs.sent += rhs.sent
        lhs.sentInWindow += rhs.sentInWindow
        lhs.accepted += rhs.accepted
        lhs.acceptedInWindow += rhs.acceptedInWindow
        lhs.received += rhs.received
        lhs.receivedInWindow += rhs.receivedInWindow
        lhs.receiptsAccepted += rhs.receiptsAccepted
        lhs.receiptsAcceptedInWindow += rhs.receiptsAcceptedInWindow
        lhs.delivered += rhs.delivered
        lhs.deliveredInWindow += rhs.deliveredInWindow
        lhs.duplicates += rhs.duplicates
        lhs.duplicateAcks += rhs.duplicateAcks
        lhs.duplicateDelivered += rhs.duplicateDelivered
        lhs.sendErrors += rhs.sendErrors
        lhs.receiptErrors += rhs.receiptErrors
        lhs.recoveredBySweep += rhs.recoveredBySweep
        lhs.pendingAfterSettle += rhs.pendingAfterSettle
        lhs.signedLive += rhs.signedLive
        lhs.skippedBackpressure += rhs.skippedBackpressure
    }
}
