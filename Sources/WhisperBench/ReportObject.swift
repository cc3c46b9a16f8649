import WhisperProtocol

/// An ordered JSON object of results: members print in the order the scenario put them, so
/// the one-line JSON reads like the human summary.
public struct ReportObject: Sendable, Equatable {
    public private(set) var members: [Member]

    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: ReportValue
    }

    public init(_ pairs: [(String, ReportValue)] = []) {
        members = pairs.map { Member(key: $0.0, value: $0.1) }
    }

    public mutating func append(_ key: String, _ value: ReportValue) {
        members.append(Member(key: key, value: value))
    }

    public subscript(key: String) -> ReportValue? {
        members.first { $0.key == key }?.value
    }

    /// Compact JSON; non-finite doubles (a rate over an empty window) become `null`, and
    /// doubles are rounded to 3 decimals, which is more than any of these numbers means.
    public var json: String {
        var writer = JSONWriter(capacity: 2048)
        Self.write(self, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func write(_ object: ReportObject, to writer: inout JSONWriter) {
        writer.beginObject()
        for member in object.members {
            writer.key(member.key)
            write(member.value, to: &writer)
        }
        writer.endObject()
    }

    private static func write(_ value: ReportValue, to writer: inout JSONWriter) {
        switch value {
        case .int(let number): writer.int(Int64(number))
        case .double(let number):
            do {
                try writer.double((number * 1000).rounded() / 1000)
            } catch {
                writer.null()
            }
        case .string(let text): writer.string(text)
        case .bool(let flag): writer.bool(flag)
        case .object(let object): write(object, to: &writer)
        case .array(let values):
            writer.beginArray()
            for value in values { write(value, to: &writer) }
            writer.endArray()
        case .null: writer.null()
        }
    }
}

extension ErrorTally {
    /// `{"RATE_LIMITED":3,…}`, labels sorted.
    var report: ReportObject {
        ReportObject(sorted.map { ($0.label, .int($0.count)) })
    }

    /// `RATE_LIMITED 3, connect_failed 1` or `none`.
    var line: String {
        isEmpty ? "none" : sorted.map { "\($0.label) \($0.count)" }.joined(separator: ", ")
    }
}
