import WhisperProtocol

extension ClientSession {
    /// The pinned keys of `id`, looked up and pinned on first use (spec §3.6).
    public func contactKeys(_ id: WhisperID) throws(ClientError) -> ContactKeys {
        if let keys = pinned[id] { return keys }
        return try addContact(id)
    }

    /// Looks `id` up and pins its keys; `.keyChanged` if other keys are pinned for it already.
    @discardableResult
    public func addContact(_ id: WhisperID) throws(ClientError) -> ContactKeys {
        let keys = try lookUpKeys(id)
        if let old = pinned[id] {
            guard old.sameKeys(as: keys) else { throw .keyChanged(id) }
            return old
        }
        pinned.pin(id, keys)
        try pinned.save(in: home)
        return keys
    }

    public var contacts: [WhisperID] { pinned.contacts }

    /// `GET /users/{id}/keys` with the session token (docs/protocol.md "HTTP").
    func lookUpKeys(_ id: WhisperID) throws(ClientError) -> ContactKeys {
        guard let token = account.sessionToken else { throw .notConnected }
        let response = try http(HTTPRequest(method: "GET", url: transport.httpBase + "/users/\(id.string)/keys",
                                             headers: [("Authorization", "Bearer \(token)")]))
        switch response.status {
        case 200:
            guard let json = try? JSONParser.parse(response.body), let keys = ContactKeys(json: json) else {
                throw .protocolViolation("malformed key look-up")
            }
            return keys
        case 404:
            throw .unknownContact(id)
        default:
            throw Self.httpError(response)
        }
    }
}
