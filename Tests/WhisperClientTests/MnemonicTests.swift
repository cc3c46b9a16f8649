import Testing
import WhisperProtocol
@testable import WhisperClient

@Suite struct MnemonicTests {
    struct Vector { let entropy: [UInt8], phrase: String, seed: String }

    static func officialVectors() throws -> [Vector] {
        try ClientVectors().section("bip39").array("vectors").map { entry in
            guard let fields = entry as? [String], fields.count == 3, let entropy = Hex.decode(fields[0]) else {
                throw ClientVectors.Failure(description: "bad bip39 vector")
            }
            return Vector(entropy: entropy, phrase: fields[1], seed: fields[2])
        }
    }

    @Test func officialVectors_entropyToMnemonicToSeed_withPassphraseTREZOR() throws {
        let vectors = try Self.officialVectors()
        #expect(vectors.count == 24)
        for vector in vectors {
            let mnemonic = try Mnemonic(entropy: vector.entropy)
            #expect(mnemonic.phrase == vector.phrase)
            #expect(try Mnemonic(phrase: vector.phrase) == mnemonic)
            #expect(Hex.encode(mnemonic.seed(passphrase: "TREZOR")) == vector.seed)
        }
    }

    @Test func firstOfficialVector_isThePublishedSeed() throws {
        let mnemonic = try Mnemonic(entropy: [UInt8](repeating: 0, count: 16))
        #expect(mnemonic.phrase == "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
        #expect(Hex.encode(mnemonic.seed(passphrase: "TREZOR")) == "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04")
    }

    @Test func passphrase_isNFKDNormalisedBeforeHashing() throws {
        let vector = try ClientVectors().section("bip39").section("nfkd")
        let mnemonic = try Mnemonic(phrase: try vector.string("mnemonic"))
        let passphrase = try vector.string("passphrase")
        #expect(Hex.encode(mnemonic.seed(passphrase: passphrase)) == (try vector.string("seed")))
        // The composed "é" and its decomposed form are one passphrase.
        #expect(mnemonic.seed(passphrase: "Caf\u{E9}") == mnemonic.seed(passphrase: "Cafe\u{301}"))
        #expect(mnemonic.seed(passphrase: "Caf\u{E9}") != mnemonic.seed(passphrase: "Cafe"))
    }

    @Test func typedPhrase_anyCaseAndWhitespace_isTheCanonicalMnemonic() throws {
        let typed = try Mnemonic(phrase: "  Legal WINNER thank year\twave sausage worth useful legal winner thank\n yellow ")
        #expect(typed.phrase == "legal winner thank year wave sausage worth useful legal winner thank yellow")
        #expect(typed.entropy == [UInt8](repeating: 0x7f, count: 16))
    }

    @Test func unknownWord_isRefused_withItsPosition() {
        #expect(throws: MnemonicError.unknownWord(index: 2)) {
            try Mnemonic(phrase: "legal winner thanks year wave sausage worth useful legal winner thank yellow")
        }
    }

    @Test func badChecksum_isRefused() {
        // "yellow" → "year": every word is valid, the checksum is not.
        #expect(throws: MnemonicError.badChecksum) {
            try Mnemonic(phrase: "legal winner thank year wave sausage worth useful legal winner thank year")
        }
        #expect(throws: MnemonicError.badChecksum) {
            try Mnemonic(phrase: "winner legal thank year wave sausage worth useful legal winner thank yellow")
        }
    }

    @Test func wordCounts_bip39AllowsFive_whisperOnlyTwelve() throws {
        #expect(throws: MnemonicError.wrongWordCount(11)) {
            try Mnemonic(phrase: "legal winner thank year wave sausage worth useful legal winner thank")
        }
        #expect(throws: MnemonicError.wrongWordCount(0)) { try Mnemonic(phrase: " ") }
        let long = try Self.officialVectors()[4].phrase
        #expect(try Mnemonic(phrase: long).words.count == 18)
        #expect(throws: MnemonicError.wrongWordCount(18)) { try Mnemonic(whisperPhrase: long) }
        #expect(try Mnemonic(whisperPhrase: "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong").words.count == 12)
    }

    @Test func entropyLengths_otherThanBIP39s_areRefused() {
        #expect(throws: MnemonicError.wrongEntropyLength(15)) { try Mnemonic(entropy: [UInt8](repeating: 1, count: 15)) }
        #expect(throws: MnemonicError.wrongEntropyLength(0)) { try Mnemonic(entropy: []) }
    }

    @Test func generate_gives12ValidWords_fromFreshEntropy() throws {
        let a = Mnemonic.generate(), b = Mnemonic.generate()
        #expect(a.words.count == 12 && a.entropy.count == 16)
        #expect(try Mnemonic(whisperPhrase: a.phrase) == a)
        #expect(a != b)
    }
}
