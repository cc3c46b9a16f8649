extension JSONScanner {
    /// Reads the top-level object member by member and returns the string value of `key` as soon as
    /// that member has been read intact, even if the document is broken later on. Used only on the
    /// error path, so that an `error` reply can echo a `requestId` (docs/protocol.md "Frames").
    mutating func recoverTopLevelString(forKey key: String) -> String? {
        guard bytes.count <= limits.maxInputBytes else { return nil }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == ASCII.openBrace else { return nil }
        index += 1
        depth = 1
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == ASCII.quote else { return nil }
            index += 1
            guard let memberKey = try? parseStringBody() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == ASCII.colon else { return nil }
            index += 1
            skipWhitespace()
            guard let value = try? parseValue() else { return nil }
            if utf8Equal(memberKey, key) { return value.stringValue }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == ASCII.comma else { return nil }
            index += 1
        }
    }
}
