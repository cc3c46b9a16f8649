import Testing
import WhisperProtocol
@testable import WhisperClient

@Suite struct HKDFTests {
    @Test func rfc5869_appendixA_cases1to3() throws {
        let cases = try ClientVectors().section("hkdfRFC5869").array("cases")
        #expect(cases.count == 3)
        for case let fields as [String: Any] in cases {
            let vector = ClientVectors.Section(name: "hkdf", fields: fields)
            let (ikm, salt, info) = (try vector.hex("ikm"), try vector.hex("salt"), try vector.hex("info"))
            let length = Int(try vector.int("length"))
            #expect(Hex.encode(HKDF.extract(ikm: ikm, salt: salt)) == (try vector.string("prk")))
            #expect(Hex.encode(try HKDF.sha256(ikm: ikm, salt: salt, info: info, length: length)) == (try vector.string("okm")))
        }
        // Case 1 as printed in the RFC, independent of the file.
        #expect(Hex.encode(try HKDF.sha256(ikm: [UInt8](repeating: 0x0b, count: 22), salt: Array(0x00...0x0c),
                                           info: Array(0xf0...0xf9), length: 42))
                    == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func lengthBeyond255Blocks_isRefused_atTheLimitItIsNot() throws {
        #expect(try HKDF.sha256(ikm: [1], salt: [], info: [], length: HKDF.maxLength).count == 8160)
        #expect(throws: ClientCryptoError.derivationTooLong(8161)) {
            try HKDF.sha256(ikm: [1], salt: [], info: [], length: HKDF.maxLength + 1)
        }
    }

    @Test func pbkdf2SHA512_matchesKnownVectors_acrossTwoBlocks() {
        // PBKDF2-HMAC-SHA512("password", "salt", c, dkLen), the RFC 6070 inputs with SHA-512
        // (values from Python's hashlib.pbkdf2_hmac, an OpenSSL implementation).
        let full = PBKDF2.sha512(password: Array("password".utf8), salt: Array("salt".utf8), rounds: 1, length: 64)
        #expect(Hex.encode(full) == "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce")
        let long = PBKDF2.sha512(password: Array("password".utf8), salt: Array("salt".utf8), rounds: 2, length: 80)
        #expect(Hex.encode(long) == "e1d9c16aa681708a45f5c7c4e215ceb66e011a2e9f0040713f18aefdb866d53cf76cab2868a39b9f7840edce4fef5a82be67335c77a6068e04112754f27ccf4e473e311ad827b68945f4e2dddb204c78")
        #expect(Array(long.prefix(20)) == PBKDF2.sha512(password: Array("password".utf8), salt: Array("salt".utf8), rounds: 2, length: 20))
    }
}
