/// Where secrets and identifiers get their randomness. Production uses libsodium; tests
/// inject a scripted source to force, for example, a Whisper ID collision.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}

/// `randombytes_buf`: the OS CSPRNG through libsodium.
public struct SodiumRandom: RandomSource {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] { Sodium.randomBytes(count) }
}

extension RandomSource {
    /// Lower-case hex of `count` random bytes (nonces, correlation ids, node ids).
    public func hex(_ count: Int) -> String { Hex.encode(bytes(count)) }
}

/// Lower-case hex, the form Redis keys and log references use.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes lower- or upper-case hex; nil on odd length or a non-hex character.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let high = nibble(utf8[i]), let low = nibble(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }
}

/// Adapts a `RandomSource` to the standard library's generator protocol (for
/// `CanonicalUUID.random(using:)`).
public struct RandomSourceGenerator: RandomNumberGenerator {
    let source: RandomSource

    public init(_ source: RandomSource) { self.source = source }

    public mutating func next() -> UInt64 {
        source.bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
