/// HKDF with HMAC-SHA-256 (RFC 5869), the key-derivation step of spec §3.4 and §14.1.
public enum HKDF {
    /// RFC 5869 §2.3: L ≤ 255 · HashLen.
    public static let maxLength = 255 * HMACSHA256.outputBytes

    /// `length` bytes of HKDF-SHA256(ikm, salt, info): Extract, then Expand.
    public static func sha256(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(ClientCryptoError) -> [UInt8] {
        try expand(prk: extract(ikm: ikm, salt: salt), info: info, length: length)
    }

    /// RFC 5869 §2.2: PRK = HMAC-Hash(salt, IKM) (an empty salt is HashLen zero bytes, which
    /// HMAC pads to the same key as the empty key).
    static func extract(ikm: [UInt8], salt: [UInt8]) -> [UInt8] {
        HMACSHA256(key: salt).mac(ikm)
    }

    /// RFC 5869 §2.3: T(i) = HMAC-Hash(PRK, T(i-1) ‖ info ‖ i), OKM = the first L bytes of T(1) ‖ T(2) ‖ …
    static func expand(prk: [UInt8], info: [UInt8], length: Int) throws(ClientCryptoError) -> [UInt8] {
        guard length >= 0, length <= maxLength else { throw .derivationTooLong(length) }
        let prf = HMACSHA256(key: prk)
        var okm: [UInt8] = []
        okm.reserveCapacity(length)
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        while okm.count < length {
            previous = prf.mac(previous, info, [counter])
            okm.append(contentsOf: previous.prefix(length - okm.count))
            counter &+= 1
        }
        return okm
    }
}
