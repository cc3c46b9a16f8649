@testable import WhisperProtocol

/// Test values for the messaging frames, and a `send_message` frame written member by member as
/// raw JSON text, so tests control the exact bytes a sender puts on the wire.
enum MessageFixture {
    static let sender = "WSP-ABCD-EFGH-IJ54"
    static let recipient = "WSP-HESP-ERAL-IT3A"
    static let messageId = "6BA7B810-9DAD-41D1-80B4-00C04FD430C8"
    static let token = "k0UX3JqzqD6oV7a3w2mYQ331cXzj0cE3l0bq8sXbN1M="
    static let timestamp: Int64 = 1_763_820_000_000
    /// 24 bytes of 0x01.
    static let nonce = Base64.encode([UInt8](repeating: 1, count: 24))
    /// The bytes 0…15.
    static let ciphertext = Base64.encode((0..<16).map { UInt8($0) })
    static let signature = Base64.encode([UInt8](repeating: 2, count: 64))

    static func base64(count: Int, byte: UInt8 = 7) -> String { Base64.encode([UInt8](repeating: byte, count: count)) }

    /// `"text"` as a JSON string literal (no escaping needed for the values used here).
    static func quoted(_ text: String) -> String { "\"" + text + "\"" }

    static func error(_ body: () throws(PayloadError) -> Void) -> PayloadError? {
        do throws(PayloadError) {
            try body()
            return nil
        } catch {
            return error
        }
    }
}

/// A `send_message` frame as ordered (key, raw JSON value) members.
struct SendMessageFrame {
    var members: [(key: String, raw: String)] = [
        ("protocolVersion", "1"), ("cryptoVersion", "1"), ("sessionToken", MessageFixture.quoted(MessageFixture.token)),
        ("messageId", MessageFixture.quoted(MessageFixture.messageId)),
        ("from", MessageFixture.quoted(MessageFixture.sender)), ("to", MessageFixture.quoted(MessageFixture.recipient)),
        ("msgType", #""text""#), ("timestamp", String(MessageFixture.timestamp)),
        ("nonce", MessageFixture.quoted(MessageFixture.nonce)), ("ciphertext", MessageFixture.quoted(MessageFixture.ciphertext)),
        ("sig", MessageFixture.quoted(MessageFixture.signature)),
    ]

    /// Replaces the member in place, appends it when new, removes it for `nil`.
    func with(_ key: String, _ raw: String?) -> SendMessageFrame {
        var copy = self
        if let i = copy.members.firstIndex(where: { $0.key == key }) {
            if let raw { copy.members[i].raw = raw } else { copy.members.remove(at: i) }
        } else if let raw {
            copy.members.append((key, raw))
        }
        return copy
    }

    func with(_ changes: [(String, String?)]) -> SendMessageFrame {
        changes.reduce(self) { $0.with($1.0, $1.1) }
    }

    var payloadText: String { "{" + members.map { "\"\($0.key)\":\($0.raw)" }.joined(separator: ",") + "}" }

    var text: String { #"{"type":"send_message","requestId":"r1","payload":"# + payloadText + "}" }

    func parse(limits: Limits = .default) throws -> SendMessagePayload {
        let frame = try InboundFrame.parse(utf8Bytes(text), limits: limits)
        return try SendMessagePayload(parsing: frame, limits: limits)
    }

    /// The validation error, or `nil` when the payload is accepted. The envelope must be valid.
    func error(limits: Limits = .default) throws -> PayloadError? {
        let frame = try InboundFrame.parse(utf8Bytes(text), limits: limits)
        return MessageFixture.error { () throws(PayloadError) in _ = try SendMessagePayload(parsing: frame, limits: limits) }
    }
}
