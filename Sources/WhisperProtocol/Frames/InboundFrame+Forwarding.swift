extension InboundFrame {
    /// A payload object for another client, spliced from this frame's bytes (docs/protocol.md
    /// "Canonical signing": signed values travel exactly as the sender wrote them):
    /// `{"k1":<raw>,…}` with every key of `keys` in that order, then each of `optionalKeys`
    /// that the sender wrote (a `null` stays `null`). `sessionToken` and the versions are
    /// left behind simply by not being named.
    public func forwardedPayload(keys: [String], optionalKeys: [String] = []) -> [UInt8] {
        var capacity = 2
        for key in keys { capacity += key.utf8.count + 4 + (fields.raw(forKey: key)?.count ?? 4) }
        for key in optionalKeys { if let raw = fields.raw(forKey: key) { capacity += key.utf8.count + 4 + raw.count } }
        var writer = JSONWriter(capacity: capacity)
        writer.beginObject()
        for key in keys {
            // Handlers check their required members first; a missing one would travel as `null`.
            writer.member(key, raw: fields.raw(forKey: key) ?? Self.null)
        }
        for key in optionalKeys {
            if let raw = fields.raw(forKey: key) { writer.member(key, raw: raw) }
        }
        writer.endObject()
        return writer.bytes
    }

    private static let null = Array("null".utf8)[...]
}
