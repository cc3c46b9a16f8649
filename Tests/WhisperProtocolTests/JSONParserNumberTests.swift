import Testing
@testable import WhisperProtocol
import WhisperTesting

@Suite struct JSONParserNumberTests {
    @Test(arguments: [
        ("0", Int64(0)), ("-0", 0), ("7", 7), ("-7", -7), ("1730000000000", 1_730_000_000_000),
        ("9007199254740993", 9_007_199_254_740_993), ("9223372036854775807", .max), ("-9223372036854775808", .min),
    ])
    func integersThatFitInt64_stayIntegers(_ input: String, _ expected: Int64) throws {
        #expect(try parseJSON(input) == .int(expected))
    }

    @Test func integersBeyondInt64_becomeDoubles() throws {
        #expect(try parseJSON("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try parseJSON("-9223372036854775809") == .double(-0x1p63))
        #expect(try parseJSON("123456789012345678901234567890") == .double(1.2345678901234568e29))
    }

    @Test(arguments: [
        ("1.0", 1.0), ("-1.5", -1.5), ("0.1", 0.1), ("1e2", 100), ("1E2", 100), ("1e+2", 100),
        ("1e-2", 0.01), ("-0.0", -0.0), ("0e0", 0), ("2.5E-3", 0.0025), ("1e22", 1e22), ("1e23", 1e23),
        ("123456789.123456789", 123_456_789.123456789),
        ("1.7976931348623157e308", 1.7976931348623157e308), ("5e-324", .leastNonzeroMagnitude),
        ("2.2250738585072011e-308", Double(bitPattern: 0x000F_FFFF_FFFF_FFFF)), ("1e-400", 0),
        ("0.30000000000000004", 0.30000000000000004),
        ("9007199254740993.0", 0x1p53), // 2^53 + 1 rounds to even
        ("1e0000000000000000000001", 10),
    ])
    func numbersWithFractionOrExponent_areCorrectlyRoundedDoubles(_ input: String, _ expected: Double) throws {
        let value = try parseJSON(input)
        guard case let .double(parsed) = value else {
            Issue.record("expected a double for \(input), got \(value)")
            return
        }
        #expect(parsed.bitPattern == expected.bitPattern, "\(input)")
    }

    @Test func negativeZero_keepsItsSign() throws {
        #expect(try parseJSON("-0.0").doubleValue?.sign == .minus)
        #expect(try parseJSON("-0e5").doubleValue?.sign == .minus)
    }

    @Test(arguments: [
        ("01", JSONError.Kind.leadingZero), ("-01", .leadingZero), ("00", .leadingZero), ("00.5", .leadingZero),
        ("+1", .unexpectedByte(UInt8(ascii: "+"))), ("-", .invalidNumber), ("-a", .invalidNumber),
        (".5", .unexpectedByte(UInt8(ascii: "."))), ("1.", .invalidNumber), ("1.e5", .invalidNumber),
        ("1e", .invalidNumber), ("1e+", .invalidNumber), ("1E-", .invalidNumber), ("--1", .invalidNumber),
        ("- 1", .invalidNumber), ("NaN", .unexpectedByte(UInt8(ascii: "N"))),
        ("Infinity", .unexpectedByte(UInt8(ascii: "I"))), ("-Infinity", .invalidNumber),
        ("1e400", .numberOutOfRange), ("-1e400", .numberOutOfRange),
    ])
    func numbersOutsideTheGrammar_areRejected(_ input: String, _ kind: JSONError.Kind) {
        #expect(jsonError(input)?.kind == kind, "\(input)")
    }

    @Test(arguments: ["1.5.2", "0x1F", "1_000", "1,5", "0.1e1.5"])
    func numbersFollowedByStrayCharacters_areRejected(_ input: String) {
        #expect(jsonError(input)?.kind == .trailingData)
    }

    @Test func numberLengthLimit_holdsAtNAndNPlusOne() throws {
        let limits = JSONLimits(maxNumberBytes: 5)
        _ = try parseJSON("12345", limits: limits)
        _ = try parseJSON("-1.25", limits: limits)
        #expect(jsonError("123456", limits: limits)?.kind == .numberTooLong)
        #expect(jsonError("1.2345", limits: limits)?.kind == .numberTooLong)
    }

    @Test func numbers_endAtStructuralCharacters() throws {
        #expect(try parseJSON("[1,-2,3.5,4e1]") == [1, -2, 3.5, 40.0])
        #expect(try parseJSON(#"{"a":0}"#) == ["a": 0])
    }

    @Test func doubles_roundTripThroughTheWriter() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            var writer = JSONWriter()
            try writer.double(value)
            let parsed = try JSONParser.parse(writer.bytes)
            #expect(parsed.doubleValue?.bitPattern == value.bitPattern, "\(value)")
        }
    }
}
