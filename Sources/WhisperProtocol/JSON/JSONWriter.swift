/// Appends compact JSON text to a byte buffer.
///
/// Commas are automatic: `needsComma` is true right after a value, false right after an opening
/// bracket or a key. That one flag is enough, because closing a container leaves the writer in the
/// parent right after a value. The writer does not check nesting; callers pair begin/end.
///
///     var w = JSONWriter()
///     w.beginObject(); w.member("type", "pong"); w.key("payload"); w.beginObject(); w.endObject(); w.endObject()
///     // {"type":"pong","payload":{}}
public struct JSONWriter: Sendable {
    public internal(set) var bytes: [UInt8]
    var needsComma = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always)
    mutating func separate() {
        if needsComma { bytes.append(ASCII.comma) }
    }

    public mutating func beginObject() {
        separate()
        bytes.append(ASCII.openBrace)
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(ASCII.closeBrace)
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(ASCII.openBracket)
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(ASCII.closeBracket)
        needsComma = true
    }

    /// An object key; the next call writes its value.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(ASCII.colon)
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        separate()
        appendDecimal(value, to: &bytes)
        needsComma = true
    }

    /// Shortest text that reads back as the same `Double` (Swift's `description`, which is always
    /// valid JSON for finite values: `0.1`, `1e-07`, `1e+16`, `-0.0`). NaN and infinities throw.
    public mutating func double(_ value: Double) throws(JSONError) {
        guard value.isFinite else { throw JSONError(.nonFiniteNumber, at: 0) }
        separate()
        bytes.append(contentsOf: value.description.utf8)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        if value {
            bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65] as [UInt8])
        } else {
            bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65] as [UInt8])
        }
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C] as [UInt8])
        needsComma = true
    }

    /// Splices bytes that already are one complete, valid JSON value (e.g. a sender's exact bytes
    /// from `JSONObject.span(forKey:)`). Not checked.
    public mutating func raw(_ json: ArraySlice<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public mutating func raw(_ json: [UInt8]) {
        raw(json[...])
    }

    public mutating func raw(_ json: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public mutating func value(_ value: JSONValue) throws(JSONError) {
        switch value {
        case .null: null()
        case let .bool(b): bool(b)
        case let .int(i): int(i)
        case let .double(d): try double(d)
        case let .string(s): string(s)
        case let .array(elements):
            beginArray()
            for element in elements { try self.value(element) }
            endArray()
        case let .object(object):
            beginObject()
            for member in object.members {
                key(member.key)
                try self.value(member.value)
            }
            endObject()
        }
    }
}
