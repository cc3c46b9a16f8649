import WhisperProtocol

extension ClientSession {
    /// Waits up to `timeoutMillis` for one server frame and applies it (and any queued pushes);
    /// also sends outbox entries whose retry time has come. Throws when the connection ends.
    public func pump(timeoutMillis: Int) throws(ClientError) {
        try applyPushes()
        try refreshSessionIfDue()
        try flushOutbox()
        if let frame = try receiveFrame(timeoutMillis: timeoutMillis) {
            pushes.append(frame)
            try applyPushes()
        }
    }

    /// Applies queued pushes in arrival order (spec §5.3–§5.5: kept events in order).
    func applyPushes() throws(ClientError) {
        while !pushes.isEmpty {
            let frame = pushes.removeFirst()
            let payload = frame["payload"] ?? .null
            let type = frame["type"]?.stringValue ?? ""
            if let replyTo = frame["requestId"]?.stringValue {
                lateReply(to: replyTo, type: type, payload: payload)
                continue
            }
            switch type {
            case "message_received":
                try receive(payload)
            case "message_delivered":
                guard let id = payload["messageId"]?.stringValue, let by = payload["from"]?.stringValue.flatMap(WhisperID.validate)
                else { continue }
                if payload[ReceiptStatus.key]?.stringValue == ReceiptStatus.read.rawValue {
                    if outbox.markRead(id, by: by) { try outbox.save(in: home) }
                    onEvent(.read(messageId: id, by: by))
                } else {
                    if outbox.markDelivered(id, by: by) { try outbox.save(in: home) }
                    onEvent(.delivered(messageId: id, by: by))
                }
            case "session_revoked":
                // The close (4001/4003/4004) follows and ends the connection.
                continue
            case "typing", "presence":
                onEvent(peerSignal(type, payload) ?? .notification(type: type, payload: payload))
            case CallSignalKind.initiate.rawValue, CallSignalKind.answer.rawValue, CallSignalKind.iceCandidate.rawValue,
                 CallSignalKind.end.rawValue, "call_ringing":
                try receiveCallSignal(type, payload)
            default:
                onEvent(.notification(type: type, payload: payload))
            }
        }
    }

    /// Every page of the pending queue, oldest first (docs/protocol.md "fetch_pending").
    func fetchPending() throws(ClientError) {
        guard let token = account.sessionToken else { throw .notConnected }
        var cursor: String?
        repeat {
            let page = try expect("pending_messages", request {
                ClientFrames.fetchPending(requestId: $0, token: token, cursor: cursor, limit: Self.pageLimit)
            })
            for message in page["messages"]?.arrayValue ?? [] { try receive(message) }
            cursor = page["nextCursor"]?.stringValue
            try applyPushes()
        } while cursor != nil
    }

    /// One `message_received` payload: dedupe, verify with the sender's (pinned) keys, decrypt,
    /// store, then receipt. A duplicate is receipted again (its earlier receipt may have been
    /// lost) but not stored or shown twice.
    func receive(_ payload: JSONValue) throws(ClientError) {
        guard let messageId = payload["messageId"]?.stringValue,
              let from = payload["from"]?.stringValue.flatMap(WhisperID.validate),
              let to = payload["to"]?.stringValue.flatMap(WhisperID.validate),
              let msgType = payload["msgType"]?.stringValue.flatMap(MessageKind.init(rawValue:)),
              let timestamp = payload["timestamp"]?.int64Value,
              let nonce = payload["nonce"]?.stringValue.flatMap(Base64.decode),
              let ciphertext = payload["ciphertext"]?.stringValue.flatMap(Base64.decode),
              let signature = payload["sig"]?.stringValue.flatMap(Base64.decode)
        else { throw .protocolViolation("malformed message_received") }
        let key = SeenMessages.key(from: from, messageId: messageId)
        guard !seen.contains(key) else { return try sendReceipt(messageId: messageId, to: from) }
        let groupId = payload["groupId"]?.stringValue
        let envelope = SealedEnvelope(kind: groupId.map { .groupMessage(groupId: $0) } ?? .message, id: messageId, from: from,
                                      to: to, timestampMillis: timestamp, nonce: nonce, ciphertext: ciphertext, signature: signature)
        let keys: ContactKeys
        do {
            keys = try contactKeys(from)
        } catch .unknownContact {
            // A sender whose identity is gone (deleted): nothing can verify it.
            return onEvent(.rejected(messageId: messageId, from: from))
        }
        guard envelope.hasValidSignature(signPublicKey: keys.signPublicKey) else {
            // Pinned keys that no longer verify: ask the server whether they changed.
            if let current = try? lookUpKeys(from), !current.sameKeys(as: keys) {
                onEvent(.keyChanged(from))
            } else {
                onEvent(.rejected(messageId: messageId, from: from))
            }
            return
        }
        let plaintext: [UInt8]
        do {
            plaintext = try identity.open(envelope, senderSignPublicKey: keys.signPublicKey, senderEncPublicKey: keys.encPublicKey)
        } catch {
            return onEvent(.rejected(messageId: messageId, from: from))
        }
        // Stored as received (still encrypted) before anything else, so a crash before the
        // receipt just means the message comes again and is recognised.
        var w = JSONWriter()
        do { try w.value(payload) } catch { throw .protocolViolation("unwritable message") }
        try home.appendLine(Self.inboxFile, w.bytes)
        seen.insert(key)
        try seen.save(in: home)
        onEvent(.message(ReceivedMessage(messageId: messageId, from: from, to: to, groupId: groupId, msgType: msgType,
                                         timestamp: timestamp, plaintext: plaintext, attachment: payload["attachment"])))
        try sendReceipt(messageId: messageId, to: from)
    }

    /// `delivery_receipt`; `delivered` after storing (and again for a duplicate), `read` from
    /// `markRead`. Owed until answered: one whose answer is lost is sent again after the next
    /// login (`sendOwedReceipts`); one refused for good is not (`NOT_FOUND`, already gone after
    /// 72 h, is no failure).
    func sendReceipt(messageId: String, to sender: WhisperID, status: ReceiptStatus = .delivered) throws(ClientError) {
        guard let token = account.sessionToken, let me = account.whisperId else { throw .notConnected }
        let receipt = OwedReceipts.Receipt(messageId: messageId, to: sender, status: status)
        if owedReceipts.insert(receipt) { try owedReceipts.save(in: home) }
        do {
            _ = try expect("receipt_accepted", try request {
                ClientFrames.deliveryReceipt(requestId: $0, token: token, messageId: messageId, from: me, to: sender, status: status,
                                             timestamp: clock())
            })
        } catch .server(let code, let message, let retryAfter) where !Self.isTransient(code) {
            if owedReceipts.remove(receipt) { try owedReceipts.save(in: home) }
            guard code == "NOT_FOUND" else { throw .server(code: code, message: message, retryAfterMillis: retryAfter) }
            return
        }
        if owedReceipts.remove(receipt) { try owedReceipts.save(in: home) }
    }

    /// A refusal that a later try may not get (the server's storage, a rate limit, a session
    /// that died): the receipt stays owed.
    static func isTransient(_ code: String) -> Bool {
        code == "INTERNAL_ERROR" || code == "RATE_LIMITED" || code == "NOT_REGISTERED"
    }

    /// The receipts whose answers were lost with an earlier connection, oldest first. One the
    /// server now refuses for good is dropped (`sendReceipt`) without failing the connect.
    func sendOwedReceipts() throws(ClientError) {
        for receipt in owedReceipts.items {
            do {
                try sendReceipt(messageId: receipt.messageId, to: receipt.to, status: receipt.status)
            } catch .server(let code, _, _) where !Self.isTransient(code) {
                continue
            }
        }
    }
}
