import Foundation
import Testing
@testable import WhisperProtocol
import WhisperTesting

@Suite struct WhisperIDTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let random: [UInt8]
        let randomText: String
        let id: String
        var testDescription: String { id }
    }

    struct Fixture {
        let vectors: [Vector]
        let invalid: [String]
    }

    /// `Fixtures/whisper-id-vectors.json`, read with our own parser.
    static func loadFixture() throws -> Fixture {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/whisper-id-vectors.json")
        let root = try JSONParser.parse(Array(try Data(contentsOf: url)))
        let vectors = try #require(root["vectors"]?.arrayValue).map { entry in
            Vector(
                random: (entry["random"]?.arrayValue ?? []).compactMap { $0.int64Value.map { UInt8($0) } },
                randomText: entry["randomText"]?.stringValue ?? "",
                id: entry["id"]?.stringValue ?? ""
            )
        }
        let invalid = try #require(root["invalid"]?.arrayValue).compactMap { $0["id"]?.stringValue }
        return Fixture(vectors: vectors, invalid: invalid)
    }

    @Test func fixtureVectors_matchMakeAndValidate() throws {
        let fixture = try Self.loadFixture()
        #expect(fixture.vectors.count >= 8)
        for vector in fixture.vectors {
            #expect(vector.random.count == 10)
            #expect(WhisperID.make(randomCharacters: vector.random)?.string == vector.id)
            #expect(WhisperID.validate(vector.id)?.string == vector.id)
            let randomPart = vector.id.replacingOccurrences(of: "-", with: "").dropFirst(3).prefix(10)
            #expect(String(randomPart) == vector.randomText)
        }
    }

    /// docs/protocol.md documents the checksum with these same vectors; keep them in step.
    @Test func protocolDoc_quotesEveryFixtureVector() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/protocol.md")
        let doc = try String(contentsOf: url, encoding: .utf8)
        let fixture = try Self.loadFixture()
        for vector in fixture.vectors {
            #expect(doc.contains("| `\(vector.randomText)` | `\(vector.id)` |"), "\(vector.id)")
        }
        for id in fixture.invalid { #expect(doc.contains("`\(id)`"), "\(id)") }
    }

    @Test func fixtureInvalidIDs_areRejected() throws {
        let fixture = try Self.loadFixture()
        #expect(fixture.invalid.count >= 5)
        for id in fixture.invalid {
            #expect(WhisperID.validate(id) == nil, "\(id)")
        }
    }

    @Test(arguments: [
        ([UInt8](repeating: 0, count: 10), "WSP-AAAA-AAAA-AAAA"),
        (Array(0..<10), "WSP-ABCD-EFGH-IJ54"),
        ([7, 4, 18, 15, 4, 17, 0, 11, 8, 19], "WSP-HESP-ERAL-IT3A"),
    ])
    func make_producesTheDocumentedIDs(_ random: [UInt8], _ id: String) {
        #expect(WhisperID.make(randomCharacters: random)?.string == id)
    }

    @Test func make_rejectsWrongCountOrOutOfRangeSymbols() {
        #expect(WhisperID.make(randomCharacters: Array(repeating: 0, count: 9)) == nil)
        #expect(WhisperID.make(randomCharacters: Array(repeating: 0, count: 11)) == nil)
        #expect(WhisperID.make(randomCharacters: [32] + Array(repeating: 0, count: 9)) == nil)
    }

    @Test(arguments: [
        "wsp-abcd-efgh-ij54", "WSP-abcd-efgh-ij54", "WSP-ABCD-EFGH-IJ5", "WSP-ABCD-EFGH-IJ544",
        "WSPABCD-EFGH-IJ54-", "WSP-ABCD_EFGH-IJ54", "WSP-ABCD-EFGH-IJ5\u{0}", "WSP-ABCD-EFGH-IJ50",
        "WSP-ABCD-EFGH-IJ58", "WSP-ÅBCD-EFGH-IJ54", "", "WSP-",
    ])
    func nonCanonicalText_isRejected(_ input: String) {
        #expect(WhisperID.validate(input) == nil)
    }

    @Test func randomIDs_areValid() {
        var generator = SplitMix64(seed: 99)
        for _ in 0..<1_000 {
            let id = WhisperID.random(using: &generator)
            #expect(WhisperID.validate(id.string) == id)
        }
        #expect(WhisperID.isValid(WhisperID.random().string))
    }

    /// The code is linear, so an error pattern is detected on every id iff its syndrome is non-zero.
    /// This checks all 63,798 patterns touching one or two of the 12 positions: a proof by exhaustion
    /// that every substitution and every transposition (adjacent or not) is detected.
    @Test func everyErrorInAtMostTwoPositions_hasANonZeroSyndrome() {
        var undetected = 0
        for j in 0..<12 {
            for e in UInt8(1)..<32 {
                var pattern = [UInt8](repeating: 0, count: 12)
                pattern[j] = e
                if WhisperID.syndromes(pattern) == (0, 0) { undetected += 1 }
                for k in (j + 1)..<12 {
                    for f in UInt8(1)..<32 {
                        pattern[k] = f
                        if WhisperID.syndromes(pattern) == (0, 0) { undetected += 1 }
                    }
                    pattern[k] = 0
                }
            }
        }
        #expect(undetected == 0)
    }

    @Test func everySubstitutionAndAdjacentTransposition_isDetected_onRandomIDs() {
        var generator = SplitMix64(seed: 2026)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let positions = [4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17]   // symbol positions in the text
        var checked = 0
        for _ in 0..<300 {
            let original = Array(WhisperID.random(using: &generator).string)
            for p in positions {
                for replacement in alphabet where replacement != original[p] {
                    var mutated = original
                    mutated[p] = replacement
                    #expect(WhisperID.validate(String(mutated)) == nil)
                    checked += 1
                }
            }
            for (a, b) in zip(positions, positions.dropFirst()) where original[a] != original[b] {
                var swapped = original
                swapped.swapAt(a, b)
                #expect(WhisperID.validate(String(swapped)) == nil)
                checked += 1
            }
        }
        #expect(checked > 100_000)
    }

    @Test func gf32_isAField_withAlphaAsGenerator() {
        var powers = Set<UInt8>()
        for n in 0..<31 { powers.insert(GF32.alphaPower(n)) }
        #expect(powers.count == 31)
        #expect(!powers.contains(0))
        for a in UInt8(1)..<32 {
            #expect(GF32.multiply(a, GF32.inverse(a)) == 1)
        }
        for a in UInt8(0)..<32 { #expect(GF32.timesAlpha(a) == GF32.multiply(a, 2)) }
    }
}
