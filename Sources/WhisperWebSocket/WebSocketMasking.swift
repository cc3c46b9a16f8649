/// The 32-bit client masking key (RFC 6455 §5.3), octets in wire order.
public struct WebSocketMaskingKey: Hashable, Sendable {
    public var b0: UInt8
    public var b1: UInt8
    public var b2: UInt8
    public var b3: UInt8

    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        (self.b0, self.b1, self.b2, self.b3) = (b0, b1, b2, b3)
    }

    /// Octet `j mod 4` of the key (RFC 6455 §5.3: `transformed-octet-i = original-octet-i XOR masking-key-octet-(i MOD 4)`).
    @inline(__always)
    public subscript(index: Int) -> UInt8 {
        switch index & 3 {
        case 0: b0
        case 1: b1
        case 2: b2
        default: b3
        }
    }
}

/// Masking and unmasking, which are the same XOR (RFC 6455 §5.3).
public enum WebSocketMasking {
    /// XORs `buffer` in place with `key`, where `buffer[0]` is octet `keyOffset` of the payload.
    ///
    /// `keyOffset` lets a payload be unmasked piecewise as it arrives across reads. Works eight
    /// octets at a time; the rotated key is laid out in memory order, so it is endian-neutral.
    public static func apply(_ key: WebSocketMaskingKey, to buffer: UnsafeMutableBufferPointer<UInt8>, keyOffset: Int) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let count = buffer.count
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { bytes in
            for i in 0..<8 { bytes[i] = key[keyOffset &+ i] }
        }
        let raw = UnsafeMutableRawPointer(base)
        var i = 0
        while i &+ 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            raw.storeBytes(of: word ^ pattern, toByteOffset: i, as: UInt64.self)
            i &+= 8
        }
        while i < count {
            base[i] ^= key[keyOffset &+ i]
            i &+= 1
        }
    }

    /// Masks or unmasks `bytes[range]` in place; `range.lowerBound` is payload octet `keyOffset`.
    public static func apply(_ key: WebSocketMaskingKey, to bytes: inout [UInt8], range: Range<Int>, keyOffset: Int) {
        bytes.withUnsafeMutableBufferPointer { all in
            apply(key, to: UnsafeMutableBufferPointer(rebasing: all[range]), keyOffset: keyOffset)
        }
    }
}
