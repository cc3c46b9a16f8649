import Testing
@testable import WhisperProtocol

@Suite struct FetchPendingPayloadTests {
    static func payload(_ changes: [(String, JSONValue?)] = []) -> JSONObject {
        var payload: JSONObject = ["protocolVersion": 1, "cryptoVersion": 1, "sessionToken": .string(MessageFixture.token)]
        for (key, value) in changes { payload[key] = value }
        return payload
    }

    static func error(_ payload: JSONObject, limits: Limits = .default) -> PayloadError? {
        MessageFixture.error { () throws(PayloadError) in _ = try FetchPendingPayload(parsing: payload, limits: limits) }
    }

    @Test func absentOrNullCursorAndLimit_startAtTheOldest_withTheDefaultPageSize() throws {
        #expect(try FetchPendingPayload(parsing: Self.payload(), limits: .default) == FetchPendingPayload(cursor: nil, limit: 50))
        #expect(try FetchPendingPayload(parsing: Self.payload([("cursor", .null), ("limit", .null)]), limits: .default)
                    == FetchPendingPayload(cursor: nil, limit: 50))
    }

    @Test func cursorAndLimit_parse() throws {
        let parsed = try FetchPendingPayload(parsing: Self.payload([("cursor", "1763820000000-3"), ("limit", 7)]), limits: .default)
        #expect(parsed.cursor == PendingCursor(milliseconds: 1_763_820_000_000, sequence: 3))
        #expect(parsed.limit == 7)
    }

    @Test func limit_isOneToTheMaximum_atNAndNPlusOne() throws {
        #expect(try FetchPendingPayload(parsing: Self.payload([("limit", 1)]), limits: .default).limit == 1)
        #expect(try FetchPendingPayload(parsing: Self.payload([("limit", 200)]), limits: .default).limit == 200)
        for bad: Int64 in [0, -1, 201, Int64.max, Int64.min] {
            #expect(Self.error(Self.payload([("limit", .int(bad))])) == .outOfRange(field: "limit"))
        }
    }

    @Test func defaultAndMaximum_followTheLimits() throws {
        var limits = Limits()
        limits.fetchPendingDefaultLimit = 10
        limits.fetchPendingMaxLimit = 20
        #expect(try FetchPendingPayload(parsing: Self.payload(), limits: limits).limit == 10)
        #expect(try FetchPendingPayload(parsing: Self.payload([("limit", 20)]), limits: limits).limit == 20)
        #expect(Self.error(Self.payload([("limit", 21)]), limits: limits) == .outOfRange(field: "limit"))
    }

    @Test(arguments: [
        ("cursor", JSONValue.string(""), PayloadError.invalidValue(field: "cursor")),
        ("cursor", "abc", .invalidValue(field: "cursor")),
        ("cursor", "1-", .invalidValue(field: "cursor")),
        ("cursor", .int(5), .wrongType(field: "cursor", expected: .string)),
        ("limit", "50", .wrongType(field: "limit", expected: .int)),
        ("limit", .double(50.0), .wrongType(field: "limit", expected: .int)),
        ("offset", 1, .unknownField("offset")),
    ])
    func invalidMember_isRejected(_ key: String, _ value: JSONValue, _ expected: PayloadError) {
        #expect(Self.error(Self.payload([(key, value)])) == expected)
    }
}
