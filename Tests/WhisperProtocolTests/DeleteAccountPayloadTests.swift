import Testing
@testable import WhisperProtocol
import WhisperTesting

@Suite struct DeleteAccountPayloadTests {
    static let signature = Base64.encode([UInt8](repeating: 3, count: 64))

    static func payload(_ extra: [(String, JSONValue?)] = []) -> JSONObject {
        var payload: JSONObject = [
            "protocolVersion": 1, "cryptoVersion": 1, "sessionToken": "k0UX3JqzqD6oV7a3w2mYQ331cXzj0cE3l0bq8sXbN1M=",
            "whisperId": "WSP-ABCD-EFGH-IJ54", "timestamp": 1_763_820_000_000, "sig": .string(signature),
        ]
        for (key, value) in extra { payload[key] = value }
        return payload
    }

    func error(_ payload: JSONObject) -> PayloadError? {
        do throws(PayloadError) {
            _ = try DeleteAccountPayload(parsing: payload)
            return nil
        } catch {
            return error
        }
    }

    @Test func parses_theThreeFields() throws {
        let parsed = try DeleteAccountPayload(parsing: Self.payload())
        #expect(parsed.whisperId.string == "WSP-ABCD-EFGH-IJ54")
        #expect(parsed.timestamp == 1_763_820_000_000)
        #expect(parsed.signature == [UInt8](repeating: 3, count: 64))
    }

    @Test func rejects_missingUnknownOrMalformedFields() {
        #expect(error(Self.payload([("whisperId", nil)])) == .missingField("whisperId"))
        #expect(error(Self.payload([("extra", 1)])) == .unknownField("extra"))
        #expect(error(Self.payload([("whisperId", "WSP-ABCD-EFGH-IJ55")])) == .invalidWhisperID(field: "whisperId"))
        #expect(error(Self.payload([("timestamp", -1)])) == .outOfRange(field: "timestamp"))
        #expect(error(Self.payload([("timestamp", "1763820000000")])) == .wrongType(field: "timestamp", expected: .int))
        #expect(error(Self.payload([("sig", .string(Base64.encode([UInt8](repeating: 3, count: 63))))]))
                    == .wrongLength(field: "sig", expectedBytes: 64, actualBytes: 63))
        #expect(error(Self.payload([("sig", "not base64")])) == .invalidBase64(field: "sig"))
    }

    /// The vector of docs/protocol.md "delete_account → account_deleted".
    @Test func signedBytes_areTheCanonicalLines_withTheFrameType() throws {
        let parsed = try DeleteAccountPayload(parsing: Self.payload())
        let bytes = parsed.signedBytes()
        #expect(String(decoding: bytes, as: UTF8.self) == "v1\ndelete_account\nWSP-ABCD-EFGH-IJ54\n1763820000000\n")
        #expect(Hex.encode(TestSHA256.hash(bytes)) == "27a1a797dd6cbed9e6b11c3eafcb880c8089f439b7d8d12fc011c23c63b13e12")
        // The example's sig: Ed25519 over that digest by the fixture key (seed 00 01 … 1f).
        let sig = try #require(Base64.decode("bgT8pHiPmY8qkQXtFr81QDHbami92RksJ7F5pqieGhcpDDB/zoyR0vHWt2hUUVGVYi2CIvG6Ht7crXt1W5qVBw=="))
        let key = TestSigningKey(seed: (0..<32).map { UInt8($0) })
        #expect(TestSigningKey.verify(signature: sig, message: TestSHA256.hash(bytes), publicKey: key.publicKey))
        #expect(key.sign(TestSHA256.hash(bytes)) == sig, "Ed25519 is deterministic")
    }
}
