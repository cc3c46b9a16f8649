import WhisperProtocol

/// Receipts sent but not yet answered (`owed-receipts.json`). The server may have applied one
/// and died before the sender's `message_delivered` left, and the message is then gone from the
/// queue, so nothing would bring it back: each is sent again after the next login until it is
/// answered or refused for good (`ClientSession.sendReceipt`; docs/client.md "Receiving").
struct OwedReceipts {
    static let fileName = "owed-receipts.json"

    struct Receipt: Equatable {
        let messageId: String
        let to: WhisperID
        let status: ReceiptStatus
    }

    private(set) var items: [Receipt] = []

    /// False if it was owed already.
    mutating func insert(_ receipt: Receipt) -> Bool {
        guard !items.contains(receipt) else { return false }
        items.append(receipt)
        return true
    }

    /// False if it was not owed.
    mutating func remove(_ receipt: Receipt) -> Bool {
        guard let index = items.firstIndex(of: receipt) else { return false }
        items.remove(at: index)
        return true
    }

    static func load(from home: ClientHome) throws(ClientError) -> OwedReceipts {
        var owed = OwedReceipts()
        guard let json = try home.readJSON(fileName) else { return owed }
        guard let list = json["receipts"]?.arrayValue else { throw .storage("\(fileName) is damaged") }
        for item in list {
            guard let messageId = item["messageId"]?.stringValue, let to = item["to"]?.stringValue.flatMap(WhisperID.validate),
                  let status = item["status"]?.stringValue.flatMap(ReceiptStatus.init(rawValue:))
            else { throw .storage("\(fileName) is damaged") }
            owed.items.append(Receipt(messageId: messageId, to: to, status: status))
        }
        return owed
    }

    func save(in home: ClientHome) throws(ClientError) {
        var w = JSONWriter(capacity: items.count * 96 + 16)
        w.beginObject()
        w.key("receipts")
        w.beginArray()
        for item in items {
            w.beginObject()
            w.member("messageId", item.messageId)
            w.member("to", item.to.string)
            w.member("status", item.status.rawValue)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        try home.write(Self.fileName, w.bytes)
    }
}
