/// Server frames of 1:1 messaging (docs/protocol.md "Messaging (1:1)"). Each returns the complete frame.
///
/// Payloads that carry what a client sent (`message_received`, `pending_messages`) splice the
/// stored `deliveryPayload` bytes unchanged (docs/protocol.md "Canonical signing"); ids are written as the client spelt
/// them (`messageIdText`), since the sender matches acknowledgements against its own outbox.
public enum MessageFrames {
    public static let messageAcceptedType = "message_accepted"
    public static let messageReceivedType = "message_received"
    public static let pendingMessagesType = "pending_messages"
    public static let messageDeliveredType = "message_delivered"
    public static let receiptAcceptedType = "receipt_accepted"
    /// `message_accepted.status`: the only value (docs/protocol.md "Messaging (1:1)"; the client state machine's "sent").
    public static let sentStatus = "sent"

    /// Reply to `send_message`, for a new message and for a repeat alike (docs/protocol.md "Messaging (1:1)").
    ///
    ///     {"type":"message_accepted","requestId"?,"payload":{"messageId":…,"status":"sent","serverTime":…}}
    public static func messageAccepted(messageIdText: String, serverTime: Int64, requestId: String?) -> [UInt8] {
        OutboundFrame.encode(type: messageAcceptedType, requestId: requestId) { writer in
            writer.member("messageId", messageIdText)
            writer.member("status", sentStatus)
            writer.member("serverTime", serverTime)
        }
    }

    /// A message for its recipient, live (docs/protocol.md "Messaging (1:1)"). Not a reply: no `requestId`.
    ///
    ///     {"type":"message_received","payload":<deliveryPayload>}
    public static func messageReceived(deliveryPayload: [UInt8]) -> [UInt8] {
        messageReceived(deliveryPayload: deliveryPayload[...])
    }

    public static func messageReceived(deliveryPayload: ArraySlice<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(messageReceivedPrefix.utf8.count + deliveryPayload.count + messageReceivedSuffix.utf8.count
                                  + OutboundFrame.headerRoom)
        bytes.append(contentsOf: messageReceivedPrefix.utf8)
        bytes.append(contentsOf: deliveryPayload)
        bytes.append(contentsOf: messageReceivedSuffix.utf8)
        return bytes
    }

    /// The `message_received` envelope around a delivery payload: the one definition, which
    /// the accept script (built in Redis when the recipient is on another node) splices too.
    public static let messageReceivedPrefix = #"{"type":"message_received","payload":"#
    public static let messageReceivedSuffix = "}"

    /// Reply to `fetch_pending` (docs/protocol.md "Messaging (1:1)"): stored `message_received` payloads, oldest first;
    /// `nextCursor` only when more remain.
    ///
    ///     {"type":"pending_messages","requestId"?,"payload":{"messages":[<raw>,…],"nextCursor":"ms-seq"?}}
    public static func pendingMessages(payloads: [ArraySlice<UInt8>], nextCursor: PendingCursor?, requestId: String?) -> [UInt8] {
        // A page is up to 200 payloads of ~1 KB (text) to ~680 KB (a frame-sized media message):
        // size the buffer once instead of doubling through the page.
        var capacity = 128 + (requestId?.utf8.count ?? 0) + payloads.count
        for payload in payloads { capacity += payload.count }
        return OutboundFrame.encode(type: pendingMessagesType, requestId: requestId, capacity: capacity) { writer in
            writer.key("messages")
            writer.beginArray()
            for payload in payloads { writer.raw(payload) }
            writer.endArray()
            if let nextCursor { writer.member("nextCursor", nextCursor.text) }
        }
    }

    /// A receipt forwarded to the message's original sender (docs/protocol.md "Messaging (1:1)"); sent live
    /// or right after the sender's next login. Not a reply: no `requestId`.
    ///
    ///     {"type":"message_delivered","payload":{"messageId":…,"from":…,"status":…,"timestamp":…}}
    public static func messageDelivered(messageIdText: String, from: WhisperID, status: ReceiptStatus, timestamp: Int64) -> [UInt8] {
        OutboundFrame.encode(type: messageDeliveredType, requestId: nil) { writer in
            writer.member("messageId", messageIdText)
            writer.member("from", from.string)
            writer.member("status", status.rawValue)
            writer.member("timestamp", timestamp)
        }
    }

    /// `message_delivered` cut around its `messageId` value: the receipt script finds the id as
    /// the message's sender spelt it (contract §15) in Redis and writes `head + id + tail`, which
    /// is `messageDelivered(messageIdText: id, …)` byte for byte.
    public static func messageDeliveredParts(from: WhisperID, status: ReceiptStatus, timestamp: Int64) -> (head: [UInt8], tail: [UInt8]) {
        let frame = messageDelivered(messageIdText: "", from: from, status: status, timestamp: timestamp)
        let cut = messageDeliveredHead.utf8.count
        return (Array(frame[..<cut]), Array(frame[cut...]))
    }

    /// Everything of a `message_delivered` frame before the `messageId` value (it is the first member).
    static let messageDeliveredHead = #"{"type":"message_delivered","payload":{"messageId":""#

    /// Reply to `delivery_receipt`. The spec defines no acknowledgement; this one tells the client
    /// the receipt was processed, so it can stop retrying it.
    ///
    ///     {"type":"receipt_accepted","requestId"?,"payload":{"messageId":…,"status":…}}
    public static func receiptAccepted(messageIdText: String, status: ReceiptStatus, requestId: String?) -> [UInt8] {
        OutboundFrame.encode(type: receiptAcceptedType, requestId: requestId) { writer in
            writer.member("messageId", messageIdText)
            writer.member("status", status.rawValue)
        }
    }
}
