// Key-and-value shorthands for building payloads:
// `w.member("messageId", id); w.member("serverTime", now); w.member("success", true)`.

extension JSONWriter {
    public mutating func member(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    /// Writes `null` for `nil`. To omit the member instead, test before calling.
    public mutating func member(_ key: String, _ value: String?) {
        self.key(key)
        if let value { string(value) } else { null() }
    }

    public mutating func member(_ key: String, _ value: Int64) {
        self.key(key)
        int(value)
    }

    public mutating func member(_ key: String, _ value: Bool) {
        self.key(key)
        bool(value)
    }

    public mutating func member(_ key: String, raw json: ArraySlice<UInt8>) {
        self.key(key)
        raw(json)
    }

    public mutating func member(_ key: String, value: JSONValue) throws(JSONError) {
        self.key(key)
        try self.value(value)
    }

    /// Writes `key: [strings]`.
    public mutating func member(_ key: String, strings: [String]) {
        self.key(key)
        beginArray()
        for element in strings { string(element) }
        endArray()
    }
}
