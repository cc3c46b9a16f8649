import WhisperProtocol

/// Builds one JSON object as UTF-8 bytes, field by field, with RFC 8259 §7 string escaping.
/// Only what log lines need: string, integer, number and boolean members of a flat object.
struct JSONLineBuilder {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    mutating func string(_ key: String, _ value: String) {
        self.key(key)
        appendString(value)
    }

    mutating func int(_ key: String, _ value: Int) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func uint(_ key: String, _ value: UInt64) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ key: String, _ value: Bool) {
        self.key(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A number rounded to 3 decimals; non-finite values (not valid JSON) become `null`.
    mutating func number(_ key: String, _ value: Double) {
        self.key(key)
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 {
            bytes.append(contentsOf: String(Int64(rounded)).utf8)
        } else {
            bytes.append(contentsOf: rounded.description.utf8)
        }
    }

    /// A raw, already valid JSON value (the timestamp's quoted string).
    mutating func raw(_ key: String, appending body: (inout [UInt8]) -> Void) {
        self.key(key)
        body(&bytes)
    }

    /// Closes the object and adds the line feed.
    mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    private mutating func key(_ key: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Escaped by `JSONString`, and JavaScript-safe: DEL and U+2028/2029 are escaped too, so a
    /// line is safe to embed in JavaScript.
    private mutating func appendString(_ value: String) {
        JSONString.appendQuoted(value, to: &bytes, escaping: .javaScriptSafe)
    }
}
