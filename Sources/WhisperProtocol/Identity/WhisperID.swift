/// A Whisper ID: `WSP-XXXX-XXXX-XXXX` (docs/protocol.md "Whisper IDs", docs/protocol.md "Identity and sessions").
///
/// The 12 X's are RFC 4648 Base32 symbols (`A`–`Z` = 0–25, `2`–`7` = 26–31). The first ten are
/// random (50 bits); the last two are check symbols (10 bits).
///
/// Checksum: read the 12 symbols v₀…v₁₁ as elements of GF(32) (polynomial x⁵+x²+1, α = x). An id is
/// valid iff  Σ vᵢ = 0  and  Σ αⁱ·vᵢ = 0  (sums are XOR). This is a shortened Reed–Solomon code with
/// minimum distance 3: any error confined to one or two positions is detected. So every single
/// substitution and every transposition (adjacent or not, check symbols included) is caught; a
/// random id passes with probability 1/1024. Proof: one error e at j gives Σ = e ≠ 0; errors e, f at
/// j ≠ k pass only if e = f and (α^j + α^k)·e = 0, i.e. α^j = α^k, impossible for j ≠ k < 31.
///
/// Only the canonical form is accepted: uppercase, with the three dashes. Lowercase is rejected
/// rather than normalised, so an id has exactly one spelling on the wire, in signed bytes and in
/// storage keys; apps upper-case what users type before sending.
public struct WhisperID: Hashable, Sendable, CustomStringConvertible {
    public let string: String

    public static let prefix = "WSP-"
    public static let textLength = 18
    public static let randomSymbolCount = 10
    public static let symbolCount = 12
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public var description: String { string }

    init(validated string: String) { self.string = string }

    /// The id if `text` is a canonical, checksum-valid Whisper ID; otherwise `nil`.
    /// Checks the text's own bytes, with no intermediate arrays: every frame naming a user passes here.
    public static func validate(_ text: String) -> WhisperID? {
        let valid = text.utf8.withContiguousStorageIfAvailable(isCanonical)
            ?? Array(text.utf8).withUnsafeBufferPointer(isCanonical)
        return valid ? WhisperID(validated: text) : nil
    }

    /// `WSP-`, dashes after the fourth and eighth symbol, twelve Base32 symbols whose parity sums
    /// vanish. Σ αⁱvᵢ by Horner's rule from v₁₁ down, so each step is one multiply by α.
    static func isCanonical(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count == textLength, utf8.starts(with: prefix.utf8) else { return false }
        var s0: UInt8 = 0
        var s1: UInt8 = 0
        for position in (prefix.utf8.count..<textLength).reversed() {
            let byte = utf8[position]
            if position == 8 || position == 13 {
                guard byte == ASCII.minus else { return false }
                continue
            }
            guard let value = symbolValue(byte) else { return false }
            s0 ^= value
            s1 = GF32.timesAlpha(s1) ^ value
        }
        return s0 == 0 && s1 == 0
    }

    public static func isValid(_ text: String) -> Bool { validate(text) != nil }

    /// The id for ten random symbols (each 0..<32); `nil` for any other input.
    public static func make(randomCharacters: [UInt8]) -> WhisperID? {
        guard randomCharacters.count == randomSymbolCount, randomCharacters.allSatisfy({ $0 < 32 }) else {
            return nil
        }
        let (c10, c11) = checkSymbols(for: randomCharacters)
        return WhisperID(validated: format(randomCharacters + [c10, c11]))
    }

    /// Mints an id from 50 random bits. The server still checks for collisions before assigning it.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> WhisperID {
        var symbols = [UInt8]()
        symbols.reserveCapacity(randomSymbolCount)
        for _ in 0..<randomSymbolCount { symbols.append(UInt8.random(in: 0..<32, using: &generator)) }
        let (c10, c11) = checkSymbols(for: symbols)
        return WhisperID(validated: format(symbols + [c10, c11]))
    }

    public static func random() -> WhisperID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }
}
