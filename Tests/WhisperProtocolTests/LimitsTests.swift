import Testing
@testable import WhisperProtocol

@Suite struct LimitsTests {
    @Test func defaults_areTheSpecValues() {
        let limits = Limits.default
        #expect(limits.maxWebSocketMessageBytes == 512_000)
        #expect(limits.maxTextPlaintextBytes == 8_000)
        #expect(limits.maxTextCiphertextBytes == 8_016)
        #expect(limits.maxImageBytes == 15_000_000)
        #expect(limits.maxVoiceBytes == 25_000_000)
        #expect(limits.maxFileBytes == 50_000_000)
        #expect(limits.pendingTTLSeconds == 259_200)
        #expect(limits.fetchPendingDefaultLimit == 50)
        #expect(limits.fetchPendingMaxLimit == 200)
        #expect(limits.sessionTTLSeconds == 604_800)
        #expect(limits.challengeTTLSeconds == 60)
        #expect(limits.timestampSkewMillis == 600_000)
        #expect(limits.maxContactsBackupBytes == 5_000_000)
        #expect(limits.maxGroupMembers == 256)
        #expect(limits.maxJSONDepth == 32)
        #expect(limits.maxReactionKeys == 32)
        #expect(limits.maxReactionKeyBytes == 64)
        #expect(limits.maxAttachmentObjectKeyBytes == 512)
        #expect(limits.maxAttachmentContentTypeBytes == 255)
        #expect(limits.maxFileKeyBoxCiphertextBytes == 256)
    }

    @Test func frameJSONLimits_followTheFrameLimits() {
        var limits = Limits()
        limits.maxWebSocketMessageBytes = 1_000
        limits.maxJSONDepth = 8
        #expect(limits.frameJSONLimits.maxInputBytes == 1_000)
        #expect(limits.frameJSONLimits.maxDepth == 8)
    }

    @Test(arguments: [
        ("image/png", 15_000_000), ("image/", 15_000_000), ("audio/aac", 25_000_000),
        ("video/mp4", 50_000_000), ("application/pdf", 50_000_000), ("IMAGE/PNG", 50_000_000), ("", 50_000_000),
    ])
    func attachmentCap_dependsOnContentTypePrefix(_ contentType: String, _ cap: Int) {
        #expect(Limits.default.maxAttachmentBytes(contentType: contentType) == cap)
    }
}
