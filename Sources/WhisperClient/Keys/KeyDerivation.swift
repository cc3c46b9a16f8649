/// Spec §3.4 and §14.1: three independent 32-byte values from the 64-byte BIP39 seed, by
/// HKDF-SHA256 with salt "whisper" and one `info` string each (domain separation: knowing one
/// reveals nothing about the others).
///
///     encSeed     = HKDF-SHA256(seed, salt "whisper", info "whisper/enc",      32)
///     signSeed    = HKDF-SHA256(seed, salt "whisper", info "whisper/sign",     32)
///     contactsKey = HKDF-SHA256(seed, salt "whisper", info "whisper/contacts", 32)
public enum KeyDerivation {
    public static let salt = "whisper"
    public static let encInfo = "whisper/enc"
    public static let signInfo = "whisper/sign"
    public static let contactsInfo = "whisper/contacts"
    public static let seedBytes = 64
    public static let derivedBytes = 32

    static func derive(from seed: [UInt8], info: String) throws(ClientCryptoError) -> [UInt8] {
        guard seed.count == seedBytes else { throw .wrongLength(what: "BIP39 seed", expected: seedBytes, got: seed.count) }
        return try HKDF.sha256(ikm: seed, salt: Array(salt.utf8), info: Array(info.utf8), length: derivedBytes)
    }
}
