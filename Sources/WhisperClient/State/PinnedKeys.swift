import WhisperProtocol

/// Contacts' keys, pinned the first time they are looked up (`contacts.json`). Identity keys
/// never change on the server (docs/protocol.md "Login"), so a look-up that answers other keys
/// than the pinned ones is an alarm (`ClientError.keyChanged`), never a silent replacement.
struct PinnedKeys {
    static let fileName = "contacts.json"
    private(set) var keys: [WhisperID: ContactKeys] = [:]
    private var order: [WhisperID] = []

    static func load(from home: ClientHome) throws(ClientError) -> PinnedKeys {
        var pinned = PinnedKeys()
        guard let json = try home.readJSON(fileName) else { return pinned }
        guard let entries = json["contacts"]?.arrayValue else { throw .storage("\(fileName) is damaged") }
        for entry in entries {
            guard let id = entry["whisperId"]?.stringValue.flatMap(WhisperID.validate), let keys = ContactKeys(json: entry)
            else { throw .storage("\(fileName) is damaged") }
            pinned.pin(id, keys)
        }
        return pinned
    }

    subscript(id: WhisperID) -> ContactKeys? { keys[id] }

    var contacts: [WhisperID] { order }

    mutating func pin(_ id: WhisperID, _ contact: ContactKeys) {
        if keys.updateValue(contact, forKey: id) == nil { order.append(id) }
    }

    func save(in home: ClientHome) throws(ClientError) {
        var w = JSONWriter()
        w.beginObject()
        w.key("contacts")
        w.beginArray()
        for id in order {
            guard let contact = keys[id] else { continue }
            w.beginObject()
            w.member("whisperId", id.string)
            w.member("encPublicKey", Base64.encode(contact.encPublicKey))
            w.member("signPublicKey", Base64.encode(contact.signPublicKey))
            w.member("status", contact.status)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        try home.write(Self.fileName, w.bytes)
    }
}
