import Testing
import WhisperProtocol
@testable import WhisperClient

@Suite struct BIP39WordlistTests {
    /// The list as a file (each word followed by "\n") hashes to the well-known SHA-256 of
    /// BIP-0039 `english.txt`, the value the vectors file records.
    @Test func wordlist_hashesToTheBIP39EnglishFile() throws {
        let file = Array(BIP39EnglishWordlist.words.map { $0 + "\n" }.joined().utf8)
        let expected = try ClientVectors().section("bip39").string("wordlistSHA256")
        #expect(expected == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
        #expect(Hex.encode(Libsodium.sha256(file)) == expected)
    }

    @Test func wordlist_has2048SortedUniqueWords_uniqueInTheirFirstFourLetters() {
        let words = BIP39EnglishWordlist.words
        #expect(words.count == 2048)
        #expect(words == words.sorted())
        #expect(Set(words.map { $0.prefix(4) }).count == 2048)
        #expect(Mnemonic.wordIndex.count == 2048 && Mnemonic.wordIndex["zoo"] == 2047)
    }
}
