import COpenSSL
import Foundation
import Testing
import WhisperProtocol
@testable import WhisperServices

/// ES256 / RS256 compact JWS (RFC 7515, RFC 7518 §3.3–3.4) as APNs and Google OAuth check them.
/// The keys are throwaway test keys in Tests/Fixtures/push; the RS256 vector was made with
/// `openssl dgst -sha256 -sign rs256-test-key.pem` (PKCS#1 v1.5 is deterministic).
@Suite struct JWTSignerTests {
    static func fixture(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/push/" + name)
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test func rs256_matchesOpenSSLsSignature_forTheFixedVector() throws {
        let signer = try #require(JWTSigner(pem: try Self.fixture("rs256-test-key.pem"), algorithm: .rs256))
        let signature = try #require(signer.sign(Array("whisper-jwt-vector".utf8)))
        #expect(JWTSigner.base64URL(signature) == """
            I-IfENMiQ92K9l4Y_ID8QUz4p9wvaL10d5g9flxTzQwE0vE-jIf4l01MRYprYBuMFYId8lf2S7SDAb6dfiUpam7D9Q29dSreH04YQN5AmWn2Rh0_imSWmtIyXUuz__4B_sBiKc6u1Lkq2w2yA4NfIQb6j2qDu_lLnP7UoQHMkqWk6LEgHfXwdahGBSDSs17WJYzzfvx7_j8rE4QShCnxgMrUhMzFbONTOPsP_rXtqPoJeTJcgUgxFR2f_N0j00IpL1beTlOV8UkgZBVbjMhfhy1MVqzE8prjJePGWimi7dGkDoOggwZpdQieMDdLxKzKiCOqfM6ATg5Hj877zT0Isg
            """)
    }

    @Test func es256_signatureIsRawRAndSVerifiableWithTheKey_whenSigningATokenInput() throws {
        let pem = try Self.fixture("es256-test-key.p8")
        let signer = try #require(JWTSigner(pem: pem, algorithm: .es256))
        let token = try #require(signer.token(header: #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claims: #"{"iss":"TEAM","iat":1}"#))
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        #expect(parts[0] == JWTSigner.base64URL(Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8)))
        let raw = try #require(Self.decodeBase64URL(parts[2]))
        #expect(raw.count == 64)
        #expect(try Self.verifyES256(raw: raw, input: Array((parts[0] + "." + parts[1]).utf8), pem: pem))
        // A different input does not verify: the check above can fail.
        #expect(try !Self.verifyES256(raw: raw, input: Array("tampered".utf8), pem: pem))
    }

    @Test func init_refusesKeysOfTheWrongKind_forEachAlgorithm() throws {
        let ec = try Self.fixture("es256-test-key.p8")
        let rsa = try Self.fixture("rs256-test-key.pem")
        #expect(JWTSigner(pem: rsa, algorithm: .es256) == nil)
        #expect(JWTSigner(pem: ec, algorithm: .rs256) == nil)
        #expect(JWTSigner(pem: try Self.fixture("p384-test-key.pem"), algorithm: .es256) == nil)
        #expect(JWTSigner(pem: try Self.fixture("rsa1024-test-key.pem"), algorithm: .rs256) == nil)
        #expect(JWTSigner(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", algorithm: .es256) == nil)
        #expect(JWTSigner(pem: "", algorithm: .rs256) == nil)
    }

    @Test func base64URL_usesTheURLAlphabetWithoutPadding() {
        #expect(JWTSigner.base64URL([0xFB, 0xFF]) == "-_8")
        #expect(JWTSigner.base64URL(Array("{}".utf8)) == "e30")
        #expect(JWTSigner.base64URL([]) == "")
    }

    static func decodeBase64URL(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Base64.decode(standard)
    }

    /// Verifies with OpenSSL after turning `r || s` back into DER.
    static func verifyES256(raw: [UInt8], input: [UInt8], pem: String) throws -> Bool {
        let bio = try #require(pem.withCString { BIO_new_mem_buf($0, Int32(pem.utf8.count)) })
        defer { BIO_free(bio) }
        let key = try #require(PEM_read_bio_PrivateKey(bio, nil, nil, nil))
        defer { EVP_PKEY_free(key) }
        let sig = try #require(ECDSA_SIG_new())
        defer { ECDSA_SIG_free(sig) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        try #require(ECDSA_SIG_set0(sig, r, s) == 1)
        var derPointer: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(sig, &derPointer)
        let der = try #require(derPointer)
        defer { CRYPTO_free(der, #file, #line) }
        let context = try #require(EVP_MD_CTX_new())
        defer { EVP_MD_CTX_free(context) }
        try #require(EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1)
        return input.withUnsafeBufferPointer { EVP_DigestVerify(context, der, Int(length), $0.baseAddress, $0.count) } == 1
    }
}
