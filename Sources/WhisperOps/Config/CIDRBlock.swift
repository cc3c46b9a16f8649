#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`; a bare address is
/// one host, /32 or /128): the sources `WHISPER_PROXY_PROTOCOL_SOURCES` trusts. The address is
/// kept as 128 bits, network byte order in `high` then `low` (IPv4 in the low 32 bits of `low`).
public struct CIDRBlock: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6 }

    public let family: Family
    public let prefixLength: Int
    /// The network address, host bits zero.
    let high: UInt64
    let low: UInt64

    /// Parses `address[/prefix]`; nil for anything else (a prefix past the family's width, host
    /// bits set, signs, spaces, zone ids).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let addressText = String(parts[0])
        var v4 = in_addr()
        var v6 = in6_addr()
        let family: Family
        var high: UInt64 = 0, low: UInt64 = 0
        if inet_pton(AF_INET, addressText, &v4) == 1 {
            family = .ipv4
            low = UInt64(UInt32(bigEndian: v4.s_addr))
        } else if inet_pton(AF_INET6, addressText, &v6) == 1 {
            family = .ipv6
            (high, low) = withUnsafeBytes(of: v6) { CIDRBlock.words(ipv6: $0) }
        } else {
            return nil
        }
        let width = family == .ipv4 ? 32 : 128
        var prefixLength = width
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.utf8.count <= 3,
                  digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = Int(digits), value <= width
            else { return nil }
            prefixLength = value
        }
        let (maskHigh, maskLow) = CIDRBlock.mask(prefixLength: prefixLength, width: width)
        // `10.1.2.3/8` is almost always a typo for a host or a wrong prefix: refuse it.
        guard high & ~maskHigh == 0, low & ~maskLow == 0 else { return nil }
        self.family = family
        self.prefixLength = prefixLength
        self.high = high
        self.low = low
    }

    /// Whether the 4-byte (IPv4) or 16-byte (IPv6) address in `bytes`, network byte order, lies
    /// inside. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, what a dual-stack listener sees
    /// for an IPv4 peer) is matched as the IPv4 address.
    public func contains(addressBytes bytes: UnsafeRawBufferPointer) -> Bool {
        var family: Family
        var high: UInt64 = 0, low: UInt64 = 0
        switch bytes.count {
        case 4:
            family = .ipv4
            low = UInt64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
        case 16:
            family = .ipv6
            (high, low) = CIDRBlock.words(ipv6: bytes)
            if high == 0, low >> 32 == 0xFFFF {
                family = .ipv4
                low &= 0xFFFF_FFFF
            }
        default:
            return false
        }
        guard family == self.family else { return false }
        let (maskHigh, maskLow) = CIDRBlock.mask(prefixLength: prefixLength, width: family == .ipv4 ? 32 : 128)
        return high & maskHigh == self.high && low & maskLow == self.low
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if family == .ipv4 {
            var address = in_addr(s_addr: UInt32(truncatingIfNeeded: low).bigEndian)
            _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
        } else {
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) {
                $0.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
                $0.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
            }
            _ = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
        }
        let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(address)/\(prefixLength)"
    }

    private static func words(ipv6 bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        (UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
         UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    /// The network mask of `prefixLength` bits of a `width`-bit address, in the two words.
    private static func mask(prefixLength: Int, width: Int) -> (UInt64, UInt64) {
        if width == 32 {
            let bits: UInt64 = prefixLength == 0 ? 0 : (0xFFFF_FFFF << UInt64(32 - prefixLength)) & 0xFFFF_FFFF
            return (0, bits)
        }
        let highBits = min(prefixLength, 64), lowBits = max(0, prefixLength - 64)
        let high: UInt64 = highBits == 0 ? 0 : ~0 << UInt64(64 - highBits)
        let low: UInt64 = lowBits == 0 ? 0 : ~0 << UInt64(64 - lowBits)
        return (high, low)
    }
}
