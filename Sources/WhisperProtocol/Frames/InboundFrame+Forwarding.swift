extension InboundFrame {
    /// A payload object for another client, spliced from this frame's bytes (docs/protocol.md
    /// "Canonical signing": signed values travel exactly as the sender wrote them):
    /// `{"k1":<raw>,…}` with every key of `keys` in that order, then each of `optionalKeys`
    /// that the sender wrote (a `null` stays `null`). `sessionToken` and the versions are
    /// left behind simply by not being named.
    public func forwardedPayload(keys: [String], optionalKeys: [String] = []) -> [UInt8] {
        var members: [(key: String, raw: ArraySlice<UInt8>?)] = []
        members.reserveCapacity(keys.count + optionalKeys.count)
        var capacity = 2
        for key in keys + optionalKeys.filter({ payload.contains($0) }) {
            let raw = rawPayloadValue(forKey: key)
            members.append((key, raw))
            capacity += key.utf8.count + 4 + (raw?.count ?? 0)
        }
        var writer = JSONWriter(capacity: capacity)
        writer.beginObject()
        for member in members {
            if let raw = member.raw {
                writer.member(member.key, raw: raw)
            } else {
                // Only a frame built in code lacks spans; re-encode its value (parsed values are
                // always encodable, so the fallback `null` is unreachable from the wire).
                writer.key(member.key)
                do {
                    try writer.value(payload[member.key] ?? .null)
                } catch {
                    writer.null()
                }
            }
        }
        writer.endObject()
        return writer.bytes
    }
}
