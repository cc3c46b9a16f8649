import Testing
@testable import WhisperWebSocket

@Suite struct UTF8ValidatorTests {
    @Test func asciiAndMultibyteText_areAccepted() {
        #expect(UTF8Validator.isValid(Array("hello, world".utf8)))
        #expect(UTF8Validator.isValid(Array("κόσμε — 世界 — 😀".utf8)))
        #expect(UTF8Validator.isValid([UInt8]()))
    }

    @Test func boundaryCodePoints_areAccepted() {
        let valid: [[UInt8]] = [
            [0x00], [0x7F],
            [0xC2, 0x80], [0xDF, 0xBF],
            [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        ]
        for bytes in valid { #expect(UTF8Validator.isValid(bytes), "\(bytes)") }
    }

    @Test func overlongEncodings_areRejected() {
        let overlong: [[UInt8]] = [
            [0xC0, 0xAF], [0xC1, 0xBF],              // '/' and U+007F in two octets
            [0xE0, 0x80, 0xAF], [0xE0, 0x9F, 0xBF],  // three-octet overlongs
            [0xF0, 0x80, 0x80, 0xAF], [0xF0, 0x8F, 0xBF, 0xBF],
        ]
        for bytes in overlong { #expect(!UTF8Validator.isValid(bytes), "\(bytes)") }
    }

    @Test func surrogatesAndCodePointsAboveU10FFFF_areRejected() {
        let invalid: [[UInt8]] = [
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],  // U+D800, U+DFFF
            [0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80],    // a CESU-8 surrogate pair
            [0xF4, 0x90, 0x80, 0x80],                // U+110000
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xFE],
        ]
        for bytes in invalid { #expect(!UTF8Validator.isValid(bytes), "\(bytes)") }
    }

    @Test func strayContinuationsAndTruncatedSequences_areRejected() {
        #expect(!UTF8Validator.isValid([0x80]))
        #expect(!UTF8Validator.isValid([0x41, 0xBF, 0x41]))
        #expect(!UTF8Validator.isValid([0xC2]))
        #expect(!UTF8Validator.isValid([0xE2, 0x82]))
        #expect(!UTF8Validator.isValid([0xE2, 0x41, 0xAC]))
    }

    @Test func splitCodePoints_validate_withStateKeptAcrossCalls() {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        for split in 0...euro.count {
            var validator = UTF8Validator()
            let firstOK = validator.validate(euro[..<split])
            #expect(firstOK)
            #expect(validator.isComplete == (split == 0 || split == euro.count))
            let secondOK = validator.validate(euro[split...])
            #expect(secondOK)
            #expect(validator.isComplete)
        }
    }

    @Test func validation_fails_atTheFirstImpossibleOctet() {
        var validator = UTF8Validator()
        let prefix = validator.validate([0xF0, 0x90])  // could still become valid
        #expect(prefix)
        let broken = validator.validate([0x41])        // cannot
        #expect(!broken)
        #expect(validator.hasFailed)
        let after = validator.validate([0x41])         // failure is sticky
        #expect(!after)
        validator.reset()
        let fresh = validator.validate([0x41])
        #expect(fresh && validator.isComplete)
    }

    @Test func invalidOctets_areFound_afterLongASCIIRuns() {
        for position in [0, 7, 8, 9, 63, 64, 100] {
            var bytes = [UInt8](repeating: 0x61, count: 101)
            bytes[position] = 0xFF
            #expect(!UTF8Validator.isValid(bytes), "invalid at \(position)")
        }
        #expect(UTF8Validator.isValid([UInt8](repeating: 0x61, count: 1000) + [0xC3, 0xA9]))
    }
}
