import CSodium
import Foundation
import Testing
import WhisperProtocol
import WhisperServices

/// libsodium as the services use it, checked against RFC 8032 and the repo's fixture.
@Suite struct SodiumTests {
    init() throws { try Sodium.initialize() }

    @Test func ed25519_matchesRFC8032TestVector1_signAndVerify() throws {
        let vector = try Fixture.rfc8032().first.unwrapped("RFC 8032 TEST 1")
        let (publicKey, signature) = Fixture.sign(seed: vector.seed, message: vector.message)
        #expect(publicKey == vector.publicKey)
        #expect(signature == vector.signature)
        #expect(Sodium.verifyEd25519(signature: vector.signature, message: vector.message, publicKey: vector.publicKey))
    }

    @Test func registrationVector_isEd25519OverTheRawChallenge_withoutHashing() throws {
        let vector = try Fixture.registration()
        let (publicKey, signature) = Fixture.sign(seed: vector.seed, message: vector.message)
        #expect(vector.message.count == 32)
        #expect(publicKey == vector.publicKey)
        #expect(signature == vector.signature)
        #expect(Sodium.verifyEd25519(signature: signature, message: vector.message, publicKey: publicKey))
        // Not a signature of SHA-256(challenge): the docs/protocol.md "Canonical signing" pre-hash is for messages only.
        #expect(!Sodium.verifyEd25519(signature: signature, message: Sodium.sha256(vector.message), publicKey: publicKey))
    }

    @Test func verify_rejectsAFlippedBit_wrongKey_andWrongSizes() throws {
        let vector = try Fixture.registration()
        var tampered = vector.signature
        tampered[10] ^= 0x01
        #expect(!Sodium.verifyEd25519(signature: tampered, message: vector.message, publicKey: vector.publicKey))
        var message = vector.message
        message[0] ^= 0x80
        #expect(!Sodium.verifyEd25519(signature: vector.signature, message: message, publicKey: vector.publicKey))
        #expect(!Sodium.verifyEd25519(signature: Array(vector.signature.prefix(63)), message: vector.message,
                                      publicKey: vector.publicKey))
        #expect(!Sodium.verifyEd25519(signature: vector.signature, message: vector.message,
                                      publicKey: Array(vector.publicKey.prefix(31))))
    }

    @Test func sha256_matchesTheFIPS180Vector() {
        #expect(Hex.encode(Sodium.sha256(Array("abc".utf8)))
                    == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(Sodium.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func constantTimeEqual_comparesContentAndLength() {
        #expect(Sodium.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Sodium.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Sodium.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(Sodium.constantTimeEqual([], []))
    }

    @Test func randomBytes_haveTheRequestedLength_andDiffer() {
        #expect(Sodium.randomBytes(0).isEmpty)
        let a = Sodium.randomBytes(32), b = Sodium.randomBytes(32)
        #expect(a.count == 32 && a != b)
    }
}

/// `Tests/Fixtures/ed25519-vectors.json` (shared with the server tests and the Python interop tests).
enum Fixture {
    struct Vector {
        let seed: [UInt8]
        let publicKey: [UInt8]
        let message: [UInt8]
        let signature: [UInt8]
    }

    static func load() throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/ed25519-vectors.json")
        return try (JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]).unwrapped("fixture")
    }

    static func rfc8032() throws -> [Vector] {
        try (load()["rfc8032"] as? [[String: Any]]).unwrapped("rfc8032").map { try vector($0, message: "message") }
    }

    static func registration() throws -> Vector {
        try vector((load()["registration"] as? [String: Any]).unwrapped("registration"), message: "challenge")
    }

    static func vector(_ entry: [String: Any], message: String) throws -> Vector {
        func hex(_ key: String) throws -> [UInt8] { try ((entry[key] as? String).flatMap(Hex.decode)).unwrapped(key) }
        return Vector(seed: try hex("seed"), publicKey: try hex("publicKey"), message: try hex(message),
                      signature: try hex("signature"))
    }

    /// libsodium signing, as a client does it (the server only verifies).
    static func sign(seed: [UInt8], message: [UInt8]) -> (publicKey: [UInt8], signature: [UInt8]) {
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secretKey = [UInt8](repeating: 0, count: 64)
        var signature = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return (publicKey, signature)
    }
}

struct MissingFixture: Error, CustomStringConvertible {
    let description: String
}

extension Optional {
    func unwrapped(_ what: String) throws -> Wrapped {
        guard let self else { throw MissingFixture(description: "missing \(what)") }
        return self
    }
}
