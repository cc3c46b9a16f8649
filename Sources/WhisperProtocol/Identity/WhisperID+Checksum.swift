extension WhisperID {
    /// Solves the two parity equations for v₁₀, v₁₁ given v₀…v₉:
    ///
    ///     v₁₀ + v₁₁         = A,  A = Σ_{i<10} vᵢ
    ///     α¹⁰v₁₀ + α¹¹v₁₁   = B,  B = Σ_{i<10} αⁱvᵢ
    ///   ⇒ v₁₁ = (B + α¹⁰A) / (α¹⁰ + α¹¹),  v₁₀ = A + v₁₁
    static func checkSymbols(for random: [UInt8]) -> (UInt8, UInt8) {
        let (a, b) = syndromes(random)
        let alpha10 = GF32.alphaPower(10)
        let alpha11 = GF32.alphaPower(11)
        let numerator = b ^ GF32.multiply(alpha10, a)
        let c11 = GF32.multiply(numerator, GF32.inverse(alpha10 ^ alpha11))
        return (a ^ c11, c11)
    }

    /// The parity sums (Σ vᵢ, Σ αⁱvᵢ) over the given symbols, positions counted from 0.
    static func syndromes(_ symbols: [UInt8]) -> (UInt8, UInt8) {
        var s0: UInt8 = 0
        var s1: UInt8 = 0
        var weight: UInt8 = 1   // α^i
        for value in symbols {
            s0 ^= value
            s1 ^= GF32.multiply(weight, value)
            weight = GF32.multiply(weight, 2)
        }
        return (s0, s1)
    }

    /// RFC 4648 §6 Base32 value of an uppercase symbol.
    static func symbolValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte &- UInt8(ascii: "A")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): return byte &- UInt8(ascii: "2") &+ 26
        default: return nil
        }
    }

    /// `WSP-` + symbols in groups of four.
    static func format(_ symbols: [UInt8]) -> String {
        var utf8 = Array(prefix.utf8)
        for (i, value) in symbols.enumerated() {
            if i == 4 || i == 8 { utf8.append(ASCII.minus) }
            utf8.append(alphabet[Int(value & 0x1F)])
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
