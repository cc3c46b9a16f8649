import Testing
@testable import WhisperProtocol
import WhisperTesting

@Suite struct Base64Tests {
    // RFC 4648 §10 test vectors.
    static let rfcVectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: rfcVectors)
    func rfc4648Vectors_encode(_ plain: String, _ encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
    }

    @Test(arguments: rfcVectors)
    func rfc4648Vectors_decode(_ plain: String, _ encoded: String) {
        #expect(Base64.decode(encoded) == Array(plain.utf8))
        #expect(Base64.decodedByteCount(validating: encoded) == plain.utf8.count)
    }

    @Test func alphabet_isTheStandardOne_includingPlusAndSlash() {
        #expect(Base64.encode([0xFB, 0xFF, 0xBF]) == "+/+/")
        #expect(Base64.decode("+/+/") == [0xFB, 0xFF, 0xBF])
    }

    @Test func everyLengthAndByteValue_roundTrips() {
        var generator = SplitMix64(seed: 42)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64.encode(bytes)
            #expect(encoded.utf8.count == Base64.encodedLength(forByteCount: length))
            #expect(Base64.decode(encoded) == bytes)
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all)
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zm9", "Zm9vY",               // missing padding / bad length
        "Zg===", "====", "Z===", "=Zg=", "Zg==Zg==", "Zm=v", // misplaced padding
        "Zh==", "Zm9=", "Zm8/Zg+=",                // non-zero trailing bits (RFC 4648 §3.5)
        "Zm9v\n", "Zm 9v", " Zm9v", "Zm9v\r\n",    // whitespace
        "Zm9-", "Zm9_",                            // base64url alphabet
        "Zm9v!", "Zm9\u{0}",
        "Zm9vé===",
    ])
    func nonStrictInput_isRejected(_ input: String) {
        #expect(Base64.decode(input) == nil, "\(input)")
        #expect(Base64.decodedByteCount(validating: input) == nil, "\(input)")
    }

    @Test func everyByteString_hasExactlyOneAcceptedEncoding() {
        // For 1- and 2-byte tails, flipping any pad bit makes the text invalid.
        for last in UInt8(0)..<64 {
            let twoChar = "A" + String(Character(Unicode.Scalar(Base64.alphabet[Int(last)]))) + "=="
            #expect((Base64.decode(twoChar) != nil) == (last & 0x0F == 0), "\(twoChar)")
            let threeChar = "AA" + String(Character(Unicode.Scalar(Base64.alphabet[Int(last)]))) + "="
            #expect((Base64.decode(threeChar) != nil) == (last & 0x03 == 0), "\(threeChar)")
        }
    }

    @Test func byteSlices_decode() {
        let bytes = Array("xZm9vx".utf8)
        #expect(Base64.decode(bytes[1..<5]) == Array("foo".utf8))
    }
}
