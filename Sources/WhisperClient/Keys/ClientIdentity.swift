import WhisperProtocol

/// The key material of one Whisper identity, all derived from its seed phrase (spec §3.4, §14.1;
/// docs/client.md "Keys"):
///
/// - encryption: X25519, secret key = `encSeed` itself (clamped by X25519 when used), public key =
///   X25519(encSeed, 9) (`crypto_scalarmult_base`). Not `crypto_box_seed_keypair`, which would
///   hash the seed first: every platform's "X25519 private key from 32 raw bytes" (CryptoKit,
///   BouncyCastle, Java XDH, libsodium) gives the same key this way.
/// - signing: Ed25519 with `signSeed` as the RFC 8032 32-byte secret (`crypto_sign_seed_keypair`).
/// - contacts backup: `contactsKey`, a secretbox key.
///
/// The public keys are what `register_proof` uploads (base64). The secrets never leave this value.
public struct ClientIdentity: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let encPublicKey: [UInt8]
    public let signPublicKey: [UInt8]
    let encSecretKey: [UInt8]
    /// libsodium's 64-byte Ed25519 secret key (signSeed ‖ signPublicKey).
    let signSecretKey: [UInt8]
    let contactsKey: [UInt8]

    /// The identity of a 64-byte BIP39 seed.
    public init(seed: [UInt8]) throws(ClientCryptoError) {
        encSecretKey = try KeyDerivation.derive(from: seed, info: KeyDerivation.encInfo)
        encPublicKey = try Libsodium.x25519PublicKey(secretKey: encSecretKey)
        (signPublicKey, signSecretKey) = try Libsodium.ed25519KeyPair(
            seed: KeyDerivation.derive(from: seed, info: KeyDerivation.signInfo))
        contactsKey = try KeyDerivation.derive(from: seed, info: KeyDerivation.contactsInfo)
    }

    /// The identity of a seed phrase; the app's passphrase is empty unless the user chose one.
    public init(mnemonic: Mnemonic, passphrase: String = "") throws(ClientCryptoError) {
        try self.init(seed: mnemonic.seed(passphrase: passphrase))
    }

    /// Public keys only: the secrets are never printed or logged.
    public var description: String {
        "ClientIdentity(encPublicKey: \(Base64.encode(encPublicKey)), signPublicKey: \(Base64.encode(signPublicKey)))"
    }
    public var debugDescription: String { description }

    /// Ed25519 over `challenge` itself, not its hash (the 32 raw challenge bytes of `register_proof`, contract §4).
    public func signChallenge(_ challenge: [UInt8]) -> [UInt8] {
        Libsodium.ed25519Sign(challenge, secretKey: signSecretKey)
    }
}
