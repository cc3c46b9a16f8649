import Testing
import WhisperProtocol
@testable import WhisperOps

/// The limits of spec §11 as settings (docs/operations.md "Configuration"): each at both ends of
/// its range, one past each end, and not a number.
@Suite struct ServerConfigLimitsTests {
    /// Variable, lowest and highest accepted value, and the limit it sets.
    static let ranges: [(String, Int, Int)] = [
        ("WHISPER_MAX_TEXT_BYTES", 1, 1_000_000),
        ("WHISPER_MAX_IMAGE_BYTES", 1, 5_000_000_000),
        ("WHISPER_MAX_VOICE_BYTES", 1, 5_000_000_000),
        ("WHISPER_MAX_FILE_BYTES", 1, 5_000_000_000),
        ("WHISPER_MAX_CONTACTS_BACKUP_BYTES", 1, 100_000_000),
        ("WHISPER_PENDING_TTL_SECONDS", 60, 2_592_000),
        ("WHISPER_TIMESTAMP_SKEW_MS", 1000, 86_400_000),
        ("WHISPER_FETCH_PENDING_DEFAULT_LIMIT", 1, 200),
    ]

    static func value(of variable: String, in limits: Limits) -> Int {
        switch variable {
        case "WHISPER_MAX_TEXT_BYTES": limits.maxTextPlaintextBytes
        case "WHISPER_MAX_IMAGE_BYTES": limits.maxImageBytes
        case "WHISPER_MAX_VOICE_BYTES": limits.maxVoiceBytes
        case "WHISPER_MAX_FILE_BYTES": limits.maxFileBytes
        case "WHISPER_MAX_CONTACTS_BACKUP_BYTES": limits.maxContactsBackupBytes
        case "WHISPER_PENDING_TTL_SECONDS": Int(limits.pendingTTLSeconds)
        case "WHISPER_TIMESTAMP_SKEW_MS": Int(limits.timestampSkewMillis)
        case "WHISPER_FETCH_PENDING_DEFAULT_LIMIT": limits.fetchPendingDefaultLimit
        default: -1
        }
    }

    /// A WebSocket cap large enough that the largest text cap fits in one message.
    static let roomy = ["WHISPER_MAX_WS_MESSAGE_BYTES": String(64 << 20)]

    @Test(arguments: ranges)
    func limit_acceptsBothEndsOfItsRange(_ variable: String, _ lowest: Int, _ highest: Int) throws {
        for value in [lowest, highest] {
            let config = try loadConfig(Self.roomy.merging([variable: String(value)]) { $1 })
            #expect(Self.value(of: variable, in: config.limits) == value, "\(variable)=\(value)")
        }
    }

    @Test(arguments: ranges)
    func limit_refusesOnePastEachEnd_andNonNumbers(_ variable: String, _ lowest: Int, _ highest: Int) {
        let expected = lowest == 1 ? "a positive integer up to \(highest)" : "an integer from \(lowest) to \(highest)"
        for bad in [String(lowest - 1), String(highest + 1), "-5", "1e3", "ten"] {
            #expect(configError(Self.roomy.merging([variable: bad]) { $1 }) == .invalid(variable, expected: expected, got: bad),
                    "\(variable)=\(bad)")
        }
    }

    @Test func unset_keepsTheSpecDefaults() throws {
        let limits = try loadConfig([:]).limits
        for (variable, _, _) in Self.ranges {
            #expect(Self.value(of: variable, in: limits) == Self.value(of: variable, in: Limits.default), "\(variable)")
        }
        #expect(limits.maxTextCiphertextBytes == 8_016)
        #expect(limits.pendingTTLSeconds == 72 * 3600)
        #expect(limits.timestampSkewMillis == 600_000)
        #expect(limits.fetchPendingDefaultLimit == 50)
        #expect(limits.fetchPendingMaxLimit == 200)
    }

    @Test func textCap_mustFitInOneWebSocketMessage() throws {
        // 383,981 + 16 bytes of ciphertext are 511,996 bytes of base64: below the 512,000 cap.
        #expect(try loadConfig(["WHISPER_MAX_TEXT_BYTES": "383981"]).limits.maxTextCiphertextBytes == 383_997)
        #expect(configError(["WHISPER_MAX_TEXT_BYTES": "383982"])?.description
            == "WHISPER_MAX_TEXT_BYTES: its ciphertext in base64 (512000 bytes) must fit in WHISPER_MAX_WS_MESSAGE_BYTES (512000), got 383982")
    }

    @Test func contactsBackupCap_raisesTheOutputBufferDefault_andAnExplicitOneMustHoldIt() throws {
        let raised = try loadConfig(["WHISPER_MAX_CONTACTS_BACKUP_BYTES": "10000000"]).limits
        #expect(raised.maxHTTPResponseBytes == 13_333_624)
        #expect(raised.outputBufferLimitBytes == 13_333_624)
        #expect(configError(["WHISPER_MAX_CONTACTS_BACKUP_BYTES": "10000000", "WHISPER_OUTPUT_BUFFER_LIMIT_BYTES": "8388608"])?.variable
            == "WHISPER_OUTPUT_BUFFER_LIMIT_BYTES")
    }

    @Test func attachmentCaps_applyByContentType() throws {
        let limits = try loadConfig(["WHISPER_MAX_IMAGE_BYTES": "10", "WHISPER_MAX_VOICE_BYTES": "20",
                                     "WHISPER_MAX_FILE_BYTES": "30"]).limits
        #expect(limits.maxAttachmentBytes(contentType: "image/png") == 10)
        #expect(limits.maxAttachmentBytes(contentType: "audio/ogg") == 20)
        #expect(limits.maxAttachmentBytes(contentType: "application/pdf") == 30)
    }
}
