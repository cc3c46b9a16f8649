/// Arithmetic in GF(32) = GF(2)[x] / (x⁵ + x² + 1), the field behind the Whisper ID checksum.
///
/// Elements are 5-bit values (bit k = coefficient of x^k). Addition is XOR. `x⁵ + x² + 1` is
/// primitive, so α = x (the value 2) generates all 31 non-zero elements: α^0 … α^30 are distinct.
enum GF32 {
    /// x⁵ + x² + 1.
    static let modulus: UInt8 = 0b10_0101

    /// Carry-less multiply, reducing by the modulus whenever x⁵ appears.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = a & 0x1F
        var b = b & 0x1F
        var product: UInt8 = 0
        while b != 0 {
            if b & 1 == 1 { product ^= a }
            b >>= 1
            a <<= 1
            if a & 0x20 != 0 { a ^= modulus }
        }
        return product
    }

    /// a·α: a shift, reduced by the modulus when x⁵ appears.
    @inline(__always)
    static func timesAlpha(_ a: UInt8) -> UInt8 {
        let shifted = (a & 0x1F) << 1
        return shifted & 0x20 != 0 ? shifted ^ modulus : shifted
    }

    /// α^n for n ≥ 0.
    static func alphaPower(_ n: Int) -> UInt8 {
        var result: UInt8 = 1
        for _ in 0..<(n % 31) { result = multiply(result, 2) }
        return result
    }

    /// Multiplicative inverse of a non-zero element: a^30 = a^-1, since a^31 = 1.
    static func inverse(_ a: UInt8) -> UInt8 {
        var result: UInt8 = 1
        for _ in 0..<30 { result = multiply(result, a) }
        return result
    }
}
