import WhisperProtocol

/// The group a `group_send_message` was checked against, and the membership epoch the check
/// used (docs/protocol.md "Groups"): the store accepts only while the group's epoch is still this one.
public struct GroupStamp: Sendable, Equatable {
    public let groupId: GroupID
    public let epoch: String

    public init(groupId: GroupID, epoch: String) {
        self.groupId = groupId
        self.epoch = epoch
    }
}

/// One message to accept (docs/protocol.md "Messaging (1:1)", "Groups", after validation).
public struct MessageAcceptance: Sendable {
    public let from: WhisperID
    public let to: WhisperID
    /// Lowercase: with `from` and `to`, the idempotency key of the envelope (contract §15).
    public let messageId: CanonicalUUID
    /// The id as the sender spelt it: kept with the message, for its `message_delivered`.
    public let messageIdText: String
    /// The `message_received` payload, the sender's bytes (`SendMessagePayload.deliveryPayload`).
    public let deliveryPayload: [UInt8]
    /// Wall clock (µs) when the frame was read, carried to the delivering node for
    /// `whisper_routing_latency_seconds`.
    public let receivedAtMicros: Int64
    /// The SEND rate limit, checked and charged in the same atomic step before anything else.
    public let rateLimit: RateLimitCharge
    /// A group message: checked first, so a membership that changed since the check refuses
    /// the message (`.membershipChanged`) before anything is charged or stored. All envelopes
    /// of one group message (`from`, `groupId`, `messageId`) are charged one SEND hit together.
    public let group: GroupStamp?
    /// Push is on: when the recipient turns out to be offline, claim its push coalescing
    /// window (this many ms) in the same step (`AcceptOutcome.accepted(wakeClaimed:)`).
    public let wakeWindowMillis: Int64?

    public init(from: WhisperID, to: WhisperID, messageId: CanonicalUUID, messageIdText: String, deliveryPayload: [UInt8],
                receivedAtMicros: Int64, rateLimit: RateLimitCharge, group: GroupStamp? = nil, wakeWindowMillis: Int64? = nil) {
        self.from = from
        self.to = to
        self.messageId = messageId
        self.messageIdText = messageIdText
        self.deliveryPayload = deliveryPayload
        self.receivedAtMicros = receivedAtMicros
        self.rateLimit = rateLimit
        self.group = group
        self.wakeWindowMillis = wakeWindowMillis
    }
}

public enum AcceptOutcome: Sendable, Equatable {
    /// Queued for the recipient under `cursor`, and routed; `wakeClaimed`: the recipient was
    /// offline and this accept claimed its push window, so the caller sends the wake-up.
    case accepted(cursor: PendingCursor, routing: Routing, wakeClaimed: Bool = false)
    /// (from, to, messageId) was accepted before: nothing queued, nothing delivered.
    case duplicate
    /// The recipient blocked the sender: charged and acknowledged as usual, but nothing is
    /// queued, delivered or remembered (the sender is not told; docs/protocol.md "Blocking").
    case dropped
    /// The recipient's queue holds the maximum number of messages.
    case queueFull
    /// A SEND rate limit is exhausted: nothing was charged or stored.
    case rateLimited(retryAfterMs: Int64)
    /// The group's membership epoch is no longer the stamped one: nothing was charged or
    /// stored; the membership must be read again.
    case membershipChanged
    /// Done as `outcome` says (`accepted`, `duplicate` or `dropped`) on the Redis primary, but
    /// fewer replicas than asked (`WHISPER_REDIS_MIN_REPLICAS`) confirmed it in time: `replicas`
    /// did (nil: no count came). The caller routes as for `outcome`, but does not acknowledge:
    /// the sender retries, and the retry is a duplicate (docs/operations.md "Durability of
    /// accepted messages").
    indirect case unconfirmed(AcceptOutcome, replicas: Int?)
}

/// A page of a user's pending queue: each message's cursor and `message_received` payload.
public struct PendingPage: Sendable {
    public let messages: [(cursor: PendingCursor, payload: [UInt8])]
    /// More messages follow the last one of this page.
    public let hasMore: Bool

    public init(messages: [(cursor: PendingCursor, payload: [UInt8])], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}

/// A validated `delivery_receipt` to apply.
public struct ReceiptApplication: Sendable {
    /// The recipient of the message, who sends the receipt.
    public let recipient: WhisperID
    /// The message's sender, who gets `message_delivered`.
    public let sender: WhisperID
    public let messageId: CanonicalUUID
    /// The id as the receipt spelt it: stands in for the sender's spelling only for a message
    /// whose record predates the spelling (accepted before the 2026-11-26 upgrade).
    public let messageIdText: String
    public let status: ReceiptStatus
    /// The sender's `message_delivered` frame around its `messageId`
    /// (`MessageFrames.messageDeliveredParts`): the store writes in the sender's spelling.
    public let notification: (head: [UInt8], tail: [UInt8])

    public init(recipient: WhisperID, sender: WhisperID, messageId: CanonicalUUID, messageIdText: String,
                status: ReceiptStatus, notification: (head: [UInt8], tail: [UInt8])) {
        self.recipient = recipient
        self.sender = sender
        self.messageId = messageId
        self.messageIdText = messageIdText
        self.status = status
        self.notification = notification
    }
}

public enum ReceiptOutcome: Sendable, Equatable {
    /// Applied; `removed` when a `delivered` receipt took the message out of the queue now
    /// (false for a repeat). The notification, with the id as the sender spelt it
    /// (`messageIdText`), was routed, for a repeat again.
    case applied(removed: Bool, routing: Routing, messageIdText: String)
    /// No message (sender, recipient, messageId) is known.
    case unknown
}

/// The pending queues, idempotency keys and per-user event queues (Redis), each operation
/// one atomic step. Completions run on the caller's loop.
public protocol MessageStore {
    /// Atomically: for a group message, refuse unless the group's epoch is the stamped one;
    /// charge the rate limit (refuse if exhausted; a group message's later envelopes are not
    /// charged again); drop the message if the recipient blocked the sender; unless
    /// (from, to, messageId) is known, append the message to the recipient's queue (TTL
    /// `PENDING_TTL`), remember the key as long, record both users as direct peers, and
    /// route the `message_received` frame to the recipient's socket.
    func accept(_ message: MessageAcceptance, completion: @escaping StoreCompletion<AcceptOutcome>)

    /// Up to `limit` messages of `recipient`'s queue after `cursor` (from the start when nil),
    /// oldest first.
    func fetch(_ recipient: WhisperID, after cursor: PendingCursor?, limit: Int,
               completion: @escaping StoreCompletion<PendingPage>)

    /// Atomically: check the message (sender, recipient, messageId) exists; on
    /// `delivered` remove it from the queue; route the notification to the sender, or keep it
    /// in the sender's event queue when the sender is offline.
    func applyReceipt(_ receipt: ReceiptApplication, completion: @escaping StoreCompletion<ReceiptOutcome>)

    /// Whether (from, to, messageId) was accepted within the idempotency window (the
    /// pending TTL): the proof behind a verified abuse report.
    func wasAccepted(_ messageId: CanonicalUUID, from: WhisperID, to: WhisperID, completion: @escaping StoreCompletion<Bool>)

    /// Keeps `frame` in `user`'s event queue (sent after the next login): for a notification
    /// whose socket vanished between routing and writing.
    func keepEvent(_ frame: [UInt8], for user: WhisperID, completion: @escaping StoreCompletion<Void>)
}
