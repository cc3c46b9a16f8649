/// RFC 4648 §4 base64: standard alphabet, `=` padding required, no whitespace or line breaks, and
/// non-zero pad bits rejected (RFC 4648 §3.5), so every byte string has exactly one accepted text.
/// That uniqueness matters: signed fields are compared and verified as text.
public enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Sextet value per byte; 0xFF for bytes outside the alphabet (including `=`).
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    static let pad = UInt8(ascii: "=")

    // MARK: Lengths

    /// Length of the padded encoding of `byteCount` bytes.
    public static func encodedLength(forByteCount byteCount: Int) -> Int {
        (byteCount + 2) / 3 * 4
    }

    // MARK: Encoding

    public static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { encode($0) }
    }

    public static func encode(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBufferPointer { encode($0) }
    }

    public static func encode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let length = encodedLength(forByteCount: bytes.count)
        return alphabet.withUnsafeBufferPointer { table in
            String(unsafeUninitializedCapacity: length) { out in
                var i = 0
                var o = 0
                while bytes.count - i >= 3 {
                    let chunk = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                    out[o] = table[Int(chunk >> 18)]
                    out[o + 1] = table[Int(chunk >> 12 & 0x3F)]
                    out[o + 2] = table[Int(chunk >> 6 & 0x3F)]
                    out[o + 3] = table[Int(chunk & 0x3F)]
                    i += 3
                    o += 4
                }
                switch bytes.count - i {
                case 1:
                    let chunk = UInt32(bytes[i]) << 16
                    out[o] = table[Int(chunk >> 18)]
                    out[o + 1] = table[Int(chunk >> 12 & 0x3F)]
                    out[o + 2] = pad
                    out[o + 3] = pad
                    o += 4
                case 2:
                    let chunk = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
                    out[o] = table[Int(chunk >> 18)]
                    out[o + 1] = table[Int(chunk >> 12 & 0x3F)]
                    out[o + 2] = table[Int(chunk >> 6 & 0x3F)]
                    out[o + 3] = pad
                    o += 4
                default:
                    break
                }
                return o
            }
        }
    }

    // MARK: Decoding

    /// The decoded bytes, or `nil` if `text` is not strict base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    public static func decode(_ utf8: ArraySlice<UInt8>) -> [UInt8]? {
        utf8.withUnsafeBufferPointer { decode($0) }
    }

    public static func decode(_ utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let length = decodedByteCount(validating: utf8) else { return nil }
        return [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
            initialized = run(utf8, into: out) ?? 0
        }
    }

    /// Validates without allocating; returns the decoded length, or `nil` if not strict base64.
    /// Use it for fields the server only forwards (ciphertext) but must size-check.
    public static func decodedByteCount(validating text: String) -> Int? {
        var text = text
        return text.withUTF8 { decodedByteCount(validating: $0) }
    }

    public static func decodedByteCount(validating utf8: UnsafeBufferPointer<UInt8>) -> Int? {
        run(utf8, into: nil)
    }

    /// One pass over the text: validates, and writes the bytes when `out` is given (it must have
    /// room for the decoded length). Returns the decoded length, or `nil` on any violation.
    static func run(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>?) -> Int? {
        let count = input.count
        guard count % 4 == 0 else { return nil }
        guard count > 0 else { return 0 }
        let padding = input[count - 1] != pad ? 0 : (input[count - 2] != pad ? 1 : 2)
        let fullQuanta = count / 4 - (padding > 0 ? 1 : 0)
        return decodeTable.withUnsafeBufferPointer { table -> Int? in
            var o = 0
            for q in 0..<fullQuanta {
                let i = q * 4
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                // 0xFF (invalid) is the only table value with either high bit set.
                guard (a | b | c | d) & 0xC0 == 0 else { return nil }
                if let out {
                    out[o] = a << 2 | b >> 4
                    out[o + 1] = b << 4 | c >> 2
                    out[o + 2] = c << 6 | d
                }
                o += 3
            }
            guard padding > 0 else { return o }
            let i = fullQuanta * 4
            let a = table[Int(input[i])], b = table[Int(input[i + 1])]
            if padding == 2 {
                // "xx==": 12 bits carry 8; the low 4 bits of the second sextet must be zero.
                guard (a | b) & 0xC0 == 0, b & 0x0F == 0 else { return nil }
                if let out { out[o] = a << 2 | b >> 4 }
                return o + 1
            }
            // "xxx=": 18 bits carry 16; the low 2 bits of the third sextet must be zero.
            let c = table[Int(input[i + 2])]
            guard (a | b | c) & 0xC0 == 0, c & 0x03 == 0 else { return nil }
            if let out {
                out[o] = a << 2 | b >> 4
                out[o + 1] = b << 4 | c >> 2
            }
            return o + 2
        }
    }
}
