/// Why a seed phrase was refused (docs/client.md "Seed phrase"). An app shows the position of
/// the offending word; it never logs the phrase.
public enum MnemonicError: Error, Equatable, Sendable {
    /// Whisper identities are 12 words (spec §3.4); BIP39 itself allows 12, 15, 18, 21 or 24.
    case wrongWordCount(Int)
    /// The word at `index` (0-based) is not in the BIP39 English list.
    case unknownWord(index: Int)
    /// Every word is known but the checksum bits do not match: a word mistyped into another
    /// valid word, or words swapped.
    case badChecksum
    /// Entropy must be 16, 20, 24, 28 or 32 bytes.
    case wrongEntropyLength(Int)
}
