import Testing
@testable import WhisperProtocol

@Suite struct CanonicalSigningTests {
    @Test func canonicalBytes_followTheSpecLayoutExactly() {
        let bytes = CanonicalSigning.signedBytes(
            messageType: "send_message",
            messageId: "3F2504E0-4F89-11D3-9A0C-0305E82C3301",
            from: "WSP-ABCD-EFGH-IJ54",
            toOrGroupId: "WSP-HESP-ERAL-IT3A",
            timestampMillis: 1_730_000_000_000,
            nonceBase64: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX".utf8,
            ciphertextBase64: "aGVsbG8=".utf8
        )
        let expected: [UInt8] = Array((
            "v1\n"
                + "send_message\n"
                + "3F2504E0-4F89-11D3-9A0C-0305E82C3301\n"
                + "WSP-ABCD-EFGH-IJ54\n"
                + "WSP-HESP-ERAL-IT3A\n"
                + "1730000000000\n"
                + "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX\n"
                + "aGVsbG8=\n"
        ).utf8)
        #expect(bytes == expected)
        #expect(bytes.count == 147)
        #expect(bytes.prefix(4) == [0x76, 0x31, 0x0A, 0x73])
        #expect(bytes.last == 0x0A)
    }

    @Test func fields_areKeptExactlyAsReceived() {
        // No case folding: the signer signed what it sent.
        let upper = CanonicalSigning.signedBytes(
            messageType: "group_send_message", messageId: "ABC", from: "f", toOrGroupId: "grp-X",
            timestampMillis: 0, nonceBase64: "".utf8, ciphertextBase64: "".utf8
        )
        #expect(text(upper) == "v1\ngroup_send_message\nABC\nf\ngrp-X\n0\n\n\n")
    }

    @Test func negativeTimestamps_areWrittenInDecimal() {
        let bytes = CanonicalSigning.signedBytes(
            messageType: "call_end", messageId: "c", from: "a", toOrGroupId: "b",
            timestampMillis: -5, nonceBase64: "n".utf8, ciphertextBase64: "c".utf8
        )
        #expect(text(bytes) == "v1\ncall_end\nc\na\nb\n-5\nn\nc\n")
    }
}
