import CSodium
import Foundation

/// An Ed25519 key pair for test clients, derived with libsodium from a 32-byte seed.
public struct TestSigningKey: Sendable {
    public let seed: [UInt8]
    public let publicKey: [UInt8]
    private let secretKey: [UInt8]

    public init(seed: [UInt8]) {
        precondition(seed.count == 32, "an Ed25519 seed is 32 bytes")
        _ = sodium_init()
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secretKey = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        self.seed = seed
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    public static func random() -> TestSigningKey {
        TestSigningKey(seed: (0..<32).map { _ in UInt8.random(in: 0...255) })
    }

    /// Ed25519, no pre-hash (what `register_proof` needs over the raw challenge).
    public func sign(_ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return signature
    }
}

/// What a phone keeps: its keys, its install's deviceId and platform.
public struct TestIdentity: Sendable {
    public var signing: TestSigningKey
    public var encPublicKey: [UInt8]
    public var deviceId: String
    public var platform: String

    public init(signing: TestSigningKey = .random(), encPublicKey: [UInt8]? = nil,
                deviceId: String = UUID().uuidString.lowercased(), platform: String = "ios") {
        self.signing = signing
        self.encPublicKey = encPublicKey ?? (0..<32).map { _ in UInt8.random(in: 0...255) }
        self.deviceId = deviceId
        self.platform = platform
    }

    /// The same keys on another install (a recovery login on a new phone).
    public func onNewDevice(platform: String = "android") -> TestIdentity {
        TestIdentity(signing: signing, encPublicKey: encPublicKey, platform: platform)
    }

    public var signPublicKeyBase64: String { Data(signing.publicKey).base64EncodedString() }
    public var encPublicKeyBase64: String { Data(encPublicKey).base64EncodedString() }
}
