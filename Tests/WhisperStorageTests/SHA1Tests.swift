import Testing
@testable import WhisperStorage

@Suite("SHA-1 for script names (no server)")
struct SHA1Tests {
    // FIPS 180 / RFC 3174 test vectors.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func knownVectors_hashToTheirDigests(_ input: String, _ expected: String) {
        #expect(SHA1.hex(Array(input.utf8)) == expected)
    }

    @Test func oneMillionAs_hashToTheKnownDigest() {
        #expect(SHA1.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func paddingBoundaries_hashCorrectly_at55And56And64Bytes() {
        // Lengths around the 56-byte padding edge, checked against `sha1sum`.
        #expect(SHA1.hex([UInt8](repeating: 0x61, count: 55)) == "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        #expect(SHA1.hex([UInt8](repeating: 0x61, count: 56)) == "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        #expect(SHA1.hex([UInt8](repeating: 0x61, count: 64)) == "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }
}
