import WhisperWebSocket
import CSodium
import WhisperProtocol

/// What a phone keeps: a real Ed25519 key pair (libsodium, from a random seed, as the app
/// derives it from its recovery phrase), an X25519 public key, its install's deviceId and
/// platform.
struct BenchIdentity: Sendable {
    let signPublicKey: [UInt8]
    private let secretKey: [UInt8]
    let encPublicKey: [UInt8]
    let deviceId: String
    let platform: String
    /// Base64 forms, computed once: every login sends them.
    let signPublicKeyBase64: String
    let encPublicKeyBase64: String

    /// A fresh identity. `random` only picks the deviceId and the placeholder X25519 key;
    /// the signing seed comes from libsodium's CSPRNG, so keys are real.
    init(random: inout FastRandom, platform: String = "ios") {
        var seed = [UInt8](repeating: 0, count: Int(crypto_sign_SEEDBYTES))
        randombytes_buf(&seed, seed.count)
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        let enc = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        self.init(signPublicKey: publicKey, secretKey: secretKey, encPublicKey: enc,
                  deviceId: CanonicalUUID.random(using: &random).string, platform: platform)
    }

    private init(signPublicKey: [UInt8], secretKey: [UInt8], encPublicKey: [UInt8], deviceId: String, platform: String) {
        self.signPublicKey = signPublicKey
        self.secretKey = secretKey
        self.encPublicKey = encPublicKey
        self.deviceId = deviceId
        self.platform = platform
        signPublicKeyBase64 = Base64.encode(signPublicKey)
        encPublicKeyBase64 = Base64.encode(encPublicKey)
    }

    /// The same keys on another install: a recovery login on a new phone.
    func onNewDevice(random: inout FastRandom) -> BenchIdentity {
        BenchIdentity(signPublicKey: signPublicKey, secretKey: secretKey, encPublicKey: encPublicKey,
                      deviceId: CanonicalUUID.random(using: &random).string, platform: platform == "ios" ? "android" : "ios")
    }

    /// Ed25519 without pre-hash (`register_proof` signs the raw challenge).
    func sign(_ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return signature
    }

    /// A message signature: Ed25519 over SHA-256 of the canonical bytes (docs/protocol.md "Canonical signing").
    func signDigest(of canonical: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&digest, canonical, UInt64(canonical.count))
        return sign(digest)
    }
}
