import Foundation
import Testing
import WhisperProtocol
@testable import WhisperClient

@Suite struct ClientIdentityTests {
    @Test func keysFromTheMnemonic_matchTheVectors_forBothIdentities() throws {
        for name in ["alice", "bob"] {
            let vector = try ClientVectors().section(name)
            let mnemonic = try Mnemonic(whisperPhrase: try vector.string("mnemonic"))
            let seed = mnemonic.seed(passphrase: try vector.string("passphrase"))
            #expect(Hex.encode(seed) == (try vector.string("seed")))
            #expect(Hex.encode(try KeyDerivation.derive(from: seed, info: "whisper/enc")) == (try vector.string("encSeed")))
            #expect(Hex.encode(try KeyDerivation.derive(from: seed, info: "whisper/sign")) == (try vector.string("signSeed")))
            let identity = try ClientIdentity(mnemonic: mnemonic)
            #expect(identity.encSecretKey == (try vector.hex("encSeed")))
            #expect(identity.contactsKey == (try vector.hex("contactsKey")))
            #expect(Base64.encode(identity.encPublicKey) == (try vector.string("encPublicKey")))
            #expect(Base64.encode(identity.signPublicKey) == (try vector.string("signPublicKey")))
        }
    }

    @Test func derivedValues_areIndependentAndSeedSized() throws {
        let seed = try Mnemonic(entropy: [UInt8](repeating: 0x80, count: 16)).seed()
        let values = try ["whisper/enc", "whisper/sign", "whisper/contacts"].map { try KeyDerivation.derive(from: seed, info: $0) }
        #expect(Set(values).count == 3 && values.allSatisfy { $0.count == 32 })
        #expect(throws: ClientCryptoError.wrongLength(what: "BIP39 seed", expected: 64, got: 32)) {
            try ClientIdentity(seed: Array(seed.prefix(32)))
        }
    }

    /// RFC 8032 §7.1 from the repo's shared fixture: the seed → key pair step the sign key uses.
    @Test func ed25519_fromASeed_matchesRFC8032() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/ed25519-vectors.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let vectors = try #require(root["rfc8032"] as? [[String: Any]])
        #expect(!vectors.isEmpty)
        for fields in vectors {
            let vector = ClientVectors.Section(name: "rfc8032", fields: fields)
            let (publicKey, secretKey) = try Libsodium.ed25519KeyPair(seed: try vector.hex("seed"))
            #expect(publicKey == (try vector.hex("publicKey")))
            let signature = Libsodium.ed25519Sign(try vector.hex("message"), secretKey: secretKey)
            #expect(signature == (try vector.hex("signature")))
            #expect(Libsodium.ed25519Verify(signature: signature, message: try vector.hex("message"), publicKey: publicKey))
        }
    }

    /// RFC 7748 §6.1: the public key is X25519(secret, 9) of the raw 32 bytes.
    @Test func x25519PublicKey_matchesRFC7748() throws {
        let alice = try #require(Hex.decode("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try #require(Hex.decode("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(Hex.encode(try Libsodium.x25519PublicKey(secretKey: alice)) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(Hex.encode(try Libsodium.x25519PublicKey(secretKey: bob)) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    }

    @Test func challengeSignature_isEd25519OverTheRawBytes() throws {
        let identity = try ClientIdentity(mnemonic: try Mnemonic(entropy: [UInt8](repeating: 7, count: 16)))
        let challenge = [UInt8](repeating: 0xa5, count: 32)
        let signature = identity.signChallenge(challenge)
        #expect(Libsodium.ed25519Verify(signature: signature, message: challenge, publicKey: identity.signPublicKey))
        #expect(!Libsodium.ed25519Verify(signature: signature, message: Libsodium.sha256(challenge), publicKey: identity.signPublicKey))
    }

    @Test func descriptions_neverShowTheWordsOrTheSecrets() throws {
        let mnemonic = try Mnemonic(entropy: [UInt8](repeating: 0x7f, count: 16))
        let identity = try ClientIdentity(mnemonic: mnemonic)
        for text in ["\(mnemonic)", String(reflecting: mnemonic), "\(identity)", String(reflecting: identity)] {
            #expect(!text.contains("legal") && !text.contains(Base64.encode(identity.encSecretKey)))
            #expect(!text.contains(Hex.encode(identity.contactsKey)) && !text.contains(Base64.encode(identity.contactsKey)))
        }
        #expect("\(mnemonic)" == "Mnemonic(12 words)")
        #expect("\(identity)".contains(Base64.encode(identity.signPublicKey)))
    }
}
