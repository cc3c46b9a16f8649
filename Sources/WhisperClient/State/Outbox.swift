import WhisperProtocol

/// The persisted send queue (`outbox.json`, rewritten atomically on every transition, so it
/// survives a crash or a restart at any point). The transitions are pure; `ClientSession`
/// drives them and saves after each. An entry found `sending` at load was interrupted before
/// its reply: it is queued again and re-sent with the same `messageId` (the server answers a
/// repeat with the first acceptance and does not deliver it twice).
public struct Outbox: Sendable {
    static let fileName = "outbox.json"
    /// Spec §5.4.
    public static let maxAttempts = 10
    /// Delivered and failed entries kept for `whisper status`; older ones are dropped.
    static let finishedKept = 1_000

    public private(set) var entries: [OutboxEntry] = []
    let backoff: Backoff

    init(backoff: Backoff = Backoff(baseMillis: 1_000, capMillis: 300_000)) { self.backoff = backoff }

    /// The (first) envelope of `messageId`: the only one of a 1:1 message.
    public func entry(_ messageId: String) -> OutboxEntry? {
        entries.first { $0.messageId.lowercased() == messageId.lowercased() }
    }

    /// Every envelope of `messageId` (one per member of a group message).
    public func entries(_ messageId: String) -> [OutboxEntry] {
        entries.filter { $0.messageId.lowercased() == messageId.lowercased() }
    }

    func entry(key: String) -> OutboxEntry? { entries.first { $0.key == key } }

    /// Keys of queued entries whose time has come, oldest first.
    func due(now: Int64) -> [String] {
        entries.filter { $0.state == .queued && $0.nextAttemptAt <= now }.map(\.key)
    }

    mutating func enqueue(_ entry: OutboxEntry) {
        entries.append(entry)
        trim()
    }

    mutating func markSending(_ key: String) { update(key) { $0.state = .sending } }

    mutating func markSent(_ key: String) {
        update(key) { entry in
            if entry.state != .delivered, entry.state != .read { entry.state = .sent }
            entry.lastError = nil
        }
    }

    /// A `message_delivered` from the recipient `by`. Also from `queued`/`sending`: a receipt
    /// can overtake a lost `message_accepted`.
    mutating func markDelivered(_ messageId: String, by: WhisperID) -> Bool {
        var changed = false
        update(OutboxEntry.key(messageId: messageId, to: by)) { entry in
            guard entry.state != .delivered, entry.state != .read else { return }
            entry.state = .delivered
            changed = true
        }
        return changed
    }

    /// A `message_delivered` with status `read` from `by` (spec §5.3's optional last state). A
    /// read message was stored, so this also stands for a `delivered` it may have overtaken.
    mutating func markRead(_ messageId: String, by: WhisperID) -> Bool {
        var changed = false
        update(OutboxEntry.key(messageId: messageId, to: by)) { entry in
            guard entry.state != .read else { return }
            entry.state = .read
            changed = true
        }
        return changed
    }

    /// The send failed. `retryable`: queued again after a backoff (or `retryAfterMillis`), until
    /// the 10th attempt fails; otherwise failed at once. Returns the new state.
    @discardableResult
    mutating func markFailed(_ key: String, error: String, retryable: Bool, now: Int64, retryAfterMillis: Int64? = nil,
                             random: (ClosedRange<Int64>) -> Int64 = { Int64.random(in: $0) }) -> OutboxEntry.State? {
        var result: OutboxEntry.State?
        let backoff = self.backoff
        update(key) { entry in
            entry.attempts += 1
            entry.lastError = error
            if retryable, entry.attempts < Self.maxAttempts {
                entry.state = .queued
                entry.nextAttemptAt = now + (retryAfterMillis ?? backoff.delayMillis(attempt: entry.attempts - 1, random: random))
            } else {
                entry.state = .failed
            }
            result = entry.state
        }
        return result
    }

    /// The connection went away before the reply: back to queued, due at once (the reconnect
    /// backoff spaces the tries; no attempt is charged for a send that never got an answer).
    mutating func requeue(_ key: String) {
        update(key) { entry in if entry.state == .sending { entry.state = .queued } }
    }

    mutating func resign(_ key: String, timestamp: Int64, signature: [UInt8]) {
        update(key) { entry in (entry.timestamp, entry.signature) = (timestamp, signature) }
    }

    /// Changes the entry with `key` (`OutboxEntry.key`).
    private mutating func update(_ key: String, _ change: (inout OutboxEntry) -> Void) {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return }
        change(&entries[index])
    }

    private mutating func trim() {
        let finished = entries.indices.filter { [.delivered, .read, .failed].contains(entries[$0].state) }
        guard finished.count > Self.finishedKept else { return }
        let drop = Set(finished.prefix(finished.count - Self.finishedKept))
        entries = entries.indices.filter { !drop.contains($0) }.map { entries[$0] }
    }

    static func load(from home: ClientHome) throws(ClientError) -> Outbox {
        var outbox = Outbox()
        guard let json = try home.readJSON(fileName) else { return outbox }
        guard let list = json["entries"]?.arrayValue else { throw .storage("\(fileName) is damaged") }
        for item in list {
            guard var entry = OutboxEntry(json: item) else { throw .storage("\(fileName) is damaged") }
            if entry.state == .sending { entry.state = .queued }
            outbox.entries.append(entry)
        }
        return outbox
    }

    func save(in home: ClientHome) throws(ClientError) {
        var w = JSONWriter(capacity: 512 * entries.count + 32)
        w.beginObject()
        w.key("entries")
        w.beginArray()
        for entry in entries { entry.write(to: &w) }
        w.endArray()
        w.endObject()
        try home.write(Self.fileName, w.bytes)
    }
}
