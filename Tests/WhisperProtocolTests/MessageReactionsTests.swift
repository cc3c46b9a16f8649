import Testing
@testable import WhisperProtocol

@Suite struct MessageReactionsTests {
    static func error(_ value: JSONValue?, limits: Limits = .default) -> PayloadError? {
        var payload = JSONObject()
        payload["reactions"] = value
        return MessageFixture.error { () throws(PayloadError) in _ = try MessageReactions.validateOptional(in: payload, limits: limits) }
    }

    static func ids(_ count: Int) -> JSONValue { .array(Array(repeating: .string(MessageFixture.sender), count: count)) }

    @Test func absentNullAndEmpty_areAccepted() throws {
        #expect(try MessageReactions.validateOptional(in: [:] as JSONObject, limits: .default) == false)
        #expect(try MessageReactions.validateOptional(in: ["reactions": .null] as JSONObject, limits: .default) == false)
        #expect(try MessageReactions.validateOptional(in: ["reactions": .object([:])] as JSONObject, limits: .default) == true)
        #expect(Self.error(.object(["👍": .array([])])) == nil)
    }

    @Test func keyCount_atTheLimitIsAccepted_andOneMoreIsNot() {
        let limit = Limits.default.maxReactionKeys
        #expect(limit == 32)
        let keys = (0...limit).map { ("r\($0)", Self.ids(1)) }
        #expect(Self.error(.object(JSONObject(Array(keys.prefix(limit))))) == nil)
        #expect(Self.error(.object(JSONObject(keys))) == .outOfRange(field: "reactions"))
    }

    @Test func keyLength_isOneToSixtyFourUTF8Bytes() {
        let limit = Limits.default.maxReactionKeyBytes
        #expect(limit == 64)
        // 👍 is four UTF-8 bytes.
        #expect(Self.error(.object([String(repeating: "👍", count: 16): .array([])])) == nil)
        #expect(Self.error(.object([String(repeating: "👍", count: 16) + "a": .array([])])) == .invalidValue(field: "reactions"))
        #expect(Self.error(.object(["": .array([])])) == .invalidValue(field: "reactions"))
    }

    @Test func reactorsPerKey_atTheGroupLimitAreAccepted_andOneMoreIsNot() {
        let limit = Limits.default.maxGroupMembers
        #expect(Self.error(.object(["👍": Self.ids(limit)])) == nil)
        #expect(Self.error(.object(["👍": Self.ids(limit + 1)])) == .outOfRange(field: "reactions"))
    }

    @Test(arguments: [
        (JSONValue.array([]), PayloadError.wrongType(field: "reactions", expected: .object)),
        ("👍", .wrongType(field: "reactions", expected: .object)),
        (.object(["👍": "WSP-ABCD-EFGH-IJ54"]), .wrongType(field: "reactions", expected: .array)),
        (.object(["👍": .array([1])]), .wrongType(field: "reactions", expected: .string)),
        (.object(["👍": .array(["WSP-ABCD-EFGH-IJ55"])]), .invalidWhisperID(field: "reactions")),
        (.object(["👍": .array(["wsp-abcd-efgh-ij54"])]), .invalidWhisperID(field: "reactions")),
    ])
    func invalidReactions_areRejected(_ value: JSONValue, _ expected: PayloadError) {
        #expect(Self.error(value) == expected)
    }
}
