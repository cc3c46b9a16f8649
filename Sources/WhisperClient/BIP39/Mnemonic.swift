/// A BIP39 mnemonic over the English word list (spec §3.4, BIP-0039): entropy ‖ checksum read as
/// 11-bit word indices, where the checksum is the first ENT/32 bits of SHA-256(entropy).
///
///     12 words = 132 bits = 128 bits of entropy + 4 bits of checksum
///
/// The words are kept in canonical form (lower case, as in the list), so the seed is always
/// computed over the same sentence however the user typed it.
public struct Mnemonic: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Whisper identities use 12 words (128 bits of entropy).
    public static let whisperWordCount = 12
    public static let whisperEntropyBytes = 16
    static let allowedEntropyBytes: Set<Int> = [16, 20, 24, 28, 32]
    static let allowedWordCounts: Set<Int> = [12, 15, 18, 21, 24]
    static let bitsPerWord = 11

    public let words: [String]
    /// The entropy the words encode (the checksum bits dropped).
    public let entropy: [UInt8]

    /// The sentence BIP39 hashes: the words joined by one ASCII space.
    public var phrase: String { words.joined(separator: " ") }

    /// A new 12-word mnemonic from 128 bits of the OS CSPRNG.
    public static func generate() -> Mnemonic {
        Mnemonic(validEntropy: Libsodium.randomBytes(whisperEntropyBytes))
    }

    /// The mnemonic of `entropy` (16, 20, 24, 28 or 32 bytes).
    public init(entropy: [UInt8]) throws(MnemonicError) {
        guard Self.allowedEntropyBytes.contains(entropy.count) else { throw .wrongEntropyLength(entropy.count) }
        self.init(validEntropy: entropy)
    }

    /// A phrase that must also be a Whisper identity's: `init(phrase:)` and exactly 12 words.
    public init(whisperPhrase phrase: String) throws(MnemonicError) {
        try self.init(phrase: phrase)
        guard words.count == Self.whisperWordCount else { throw .wrongWordCount(words.count) }
    }

    private init(validEntropy entropy: [UInt8]) {
        self.entropy = entropy
        let bits = Self.bits(of: entropy) + Self.bits(of: Libsodium.sha256(entropy)).prefix(entropy.count * 8 / 32)
        words = stride(from: 0, to: bits.count, by: Self.bitsPerWord).map { start in
            let index = bits[start..<start + Self.bitsPerWord].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
            return BIP39EnglishWordlist.words[index]
        }
    }

    /// Parses and checks a phrase as a user typed it: words separated by any whitespace, any
    /// case, Unicode-normalised (NFKD) first. Any BIP39 length is accepted here;
    /// `init(whisperPhrase:)` also requires 12.
    public init(phrase: String) throws(MnemonicError) {
        let typed = UnicodeNormalization.nfkd(phrase).lowercased()
            .split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard Self.allowedWordCounts.contains(typed.count) else { throw .wrongWordCount(typed.count) }
        var bits: [Bool] = []
        bits.reserveCapacity(typed.count * Self.bitsPerWord)
        for (position, word) in typed.enumerated() {
            guard let index = Self.wordIndex[word] else { throw .unknownWord(index: position) }
            for shift in stride(from: Self.bitsPerWord - 1, through: 0, by: -1) { bits.append(index >> shift & 1 == 1) }
        }
        // ENT + ENT/32 = word count · 11, so ENT = total · 32/33.
        let entropyBits = bits.count * 32 / 33
        let entropy = stride(from: 0, to: entropyBits, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
        let checksum = Self.bits(of: Libsodium.sha256(entropy)).prefix(bits.count - entropyBits)
        guard Array(checksum) == Array(bits[entropyBits...]) else { throw .badChecksum }
        (words, self.entropy) = (typed, entropy)
    }

    /// BIP39 seed: PBKDF2-HMAC-SHA512(password = NFKD(phrase), salt = "mnemonic" ‖ NFKD(passphrase),
    /// 2,048 rounds, 64 bytes).
    public func seed(passphrase: String = "") -> [UInt8] {
        PBKDF2.sha512(password: Array(UnicodeNormalization.nfkd(phrase).utf8),
                      salt: Array(("mnemonic" + UnicodeNormalization.nfkd(passphrase)).utf8),
                      rounds: 2048, length: 64)
    }

    /// The words are the identity: never printed, logged or interpolated.
    public var description: String { "Mnemonic(\(words.count) words)" }
    public var debugDescription: String { description }

    static let wordIndex: [String: Int] = Dictionary(
        uniqueKeysWithValues: BIP39EnglishWordlist.words.enumerated().map { ($1, $0) })

    static func bits(of bytes: [UInt8]) -> [Bool] {
        bytes.flatMap { byte in (0..<8).reversed().map { byte >> $0 & 1 == 1 } }
    }
}
