import WhisperOps
import WhisperProtocol
import WhisperServices

/// Frame handlers of 1:1 messaging (docs/protocol.md "Messaging (1:1)"): payload validation
/// (`INVALID_PAYLOAD` before any I/O), the `MessagingService` call, the reply frames.
enum MessagingFrames {
    /// `send_message` and `group_send_message` → `message_accepted {messageId, status:"sent",
    /// serverTime}` once the message is queued for the recipient (the same reply for a repeat).
    static let sendMessage: FrameRoute.PrivilegedHandler = { frame, reply, session in
        let receivedAtMicros = WallTime.now().epochMicros
        guard let message = reply.validate({ () throws(PayloadError) in try SendMessagePayload(parsing: frame, limits: reply.limits) })
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.messaging.send(message, session: session, client: socket.client,
                                          receivedAtMicros: receivedAtMicros) { result in
                defer { done() }
                switch result {
                case .success:
                    socket.send(MessageFrames.messageAccepted(messageIdText: message.messageIdText,
                                                              serverTime: WallTime.now().epochMillis, requestId: frame.requestId))
                case .failure(let error):
                    reply.fail(error)
                }
            }
        }
    }

    /// `fetch_pending {cursor?, limit?}` → `pending_messages {messages, nextCursor?}`.
    static let fetchPending: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in try FetchPendingPayload(parsing: frame.payload, limits: reply.limits) })
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.messaging.fetchPending(request, session: session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success(let page):
                    let next = page.hasMore ? page.messages.last?.cursor : nil
                    socket.send(MessageFrames.pendingMessages(payloads: page.messages.map { $0.payload[...] },
                                                              nextCursor: next, requestId: frame.requestId))
                case .failure(let error):
                    reply.fail(error)
                }
            }
        }
    }

    /// `delivery_receipt` → `receipt_accepted {messageId, status}`; the sender gets
    /// `message_delivered` now or after its next login.
    static let deliveryReceipt: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let receipt = reply.validate({ () throws(PayloadError) in try DeliveryReceiptPayload(parsing: frame.fields) })
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.messaging.receipt(receipt, session: session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success:
                    socket.send(MessageFrames.receiptAccepted(messageIdText: receipt.messageIdText, status: receipt.status,
                                                              requestId: frame.requestId))
                case .failure(let error):
                    reply.fail(error)
                }
            }
        }
    }
}
