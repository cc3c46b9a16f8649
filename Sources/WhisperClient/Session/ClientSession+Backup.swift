import WhisperProtocol

extension ClientSession {
    /// Uploads the pinned contacts as the encrypted backup (spec §14.1: only ids and flags, no
    /// messages; `addedAt` is the export time, the pins do not record theirs). Returns how many.
    @discardableResult
    public func backUpContacts() throws(ClientError) -> Int {
        let now = clock()
        var w = JSONWriter()
        w.beginObject()
        w.member("version", Int64(1))
        w.member("exportedAt", now)
        w.key("contacts")
        w.beginArray()
        for id in pinned.contacts {
            w.beginObject()
            w.member("whisperId", id.string)
            w.member("addedAt", now)
            w.member("isBlocked", false)
            w.member("isPinned", false)
            w.member("isMuted", false)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        let sealed: EncryptedContactsBackup
        do { sealed = try identity.sealContactsBackup(w.bytes) } catch { throw .protocolViolation("\(error)") }
        var body = JSONWriter()
        body.beginObject()
        body.member("nonce", Base64.encode(sealed.nonce))
        body.member("ciphertext", Base64.encode(sealed.ciphertext))
        body.member(ProtocolVersion.cryptoVersionKey, ProtocolVersion.cryptoVersion)
        body.member(ProtocolVersion.protocolVersionKey, ProtocolVersion.protocolVersion)
        body.endObject()
        _ = try userRequest("PUT", "/backup/contacts", body: body.bytes)
        return pinned.contacts.count
    }

    /// Downloads and decrypts the backup, then looks up and pins every contact in it (a
    /// contact whose identity is gone is skipped). Returns the contacts restored; empty when
    /// there is no backup.
    @discardableResult
    public func restoreContacts() throws(ClientError) -> [WhisperID] {
        let blob: JSONValue
        do {
            blob = try userRequest("GET", "/backup/contacts")
        } catch .server(code: "NOT_FOUND", _, _) {
            return []
        }
        guard let nonce = blob["nonce"]?.stringValue.flatMap(Base64.decode),
              let ciphertext = blob["ciphertext"]?.stringValue.flatMap(Base64.decode) else {
            throw .protocolViolation("malformed contacts backup")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(identity.openContactsBackup(EncryptedContactsBackup(nonce: nonce, ciphertext: ciphertext)))
        } catch {
            throw .protocolViolation("the contacts backup does not open with this identity's key")
        }
        var restored: [WhisperID] = []
        for contact in json["contacts"]?.arrayValue ?? [] {
            guard let id = contact["whisperId"]?.stringValue.flatMap(WhisperID.validate) else { continue }
            do {
                try addContact(id)
                restored.append(id)
            } catch .unknownContact {
                continue
            }
        }
        return restored
    }
}
