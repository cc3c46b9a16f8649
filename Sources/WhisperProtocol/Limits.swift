/// Every named protocol limit in one place, with the spec §11 / contract defaults.
/// All are configurable; names carry their unit.
public struct Limits: Sendable, Equatable {
    // MARK: Transport
    /// A WebSocket message above this closes the socket with 1009 (contract §1).
    public var maxWebSocketMessageBytes = 512_000
    /// Nesting depth of a frame's JSON.
    public var maxJSONDepth = 32
    /// `requestId` is echoed in replies, so it is bounded (a UUID needs 36).
    public var maxRequestIdBytes = 128
    /// A socket silent this long is closed (contract §1).
    public var idleTimeoutSeconds: Int64 = 90

    // MARK: Messages
    /// MAX_TEXT_BYTES: plaintext of a `msgType:"text"` message.
    public var maxTextPlaintextBytes = 8_000
    /// The crypto_box authentication tag added to every ciphertext.
    public var boxTagBytes = 16
    /// Decoded ciphertext of a text message: 8,000 + 16 = 8,016 (contract §5).
    public var maxTextCiphertextBytes: Int { maxTextPlaintextBytes + boxTagBytes }

    /// `reactions` (passed through, spec §4.1): at most this many emoji keys per message…
    public var maxReactionKeys = 32
    /// …each key 1…this many UTF-8 bytes (an emoji with modifiers and ZWJ joins stays well below).
    public var maxReactionKeyBytes = 64

    // MARK: Attachments (decimal bytes of ciphertext, contract §14)
    public var maxImageBytes = 15_000_000
    public var maxVoiceBytes = 25_000_000
    public var maxFileBytes = 50_000_000
    /// `attachment.objectKey`: the presign answer's `att/YYYY/MM/<uuid>.bin` is 51 bytes; this
    /// leaves room for other stores' key layouts while bounding what the server records.
    public var maxAttachmentObjectKeyBytes = 512
    /// `attachment.contentType`: RFC 6838 §4.2 caps type and subtype at 127 characters each.
    public var maxAttachmentContentTypeBytes = 255
    /// `attachment.fileKeyBox.ciphertext`, decoded: a boxed 32-byte file key is 48 bytes; the cap
    /// leaves room for a future key format without letting the field carry data.
    public var maxFileKeyBoxCiphertextBytes = 256
    /// Decoded contacts-backup blob.
    public var maxContactsBackupBytes = 5_000_000

    // MARK: Pending queue
    public var pendingTTLSeconds: Int64 = 72 * 3600
    public var fetchPendingDefaultLimit = 50
    public var fetchPendingMaxLimit = 200
    /// Events (`message_delivered`, …) kept for an offline user; the oldest go first.
    public var maxKeptEventsPerUser = 1_000

    // MARK: Sessions and time
    public var sessionTTLSeconds: Int64 = 7 * 24 * 3600
    public var challengeTTLSeconds: Int64 = 60
    /// Accepted distance between a frame's `timestamp` and server time, either way (±10 min).
    public var timestampSkewMillis: Int64 = 600_000

    // MARK: Devices
    /// `pushToken` / `voipToken`: APNs tokens are 64 hex digits, FCM registration tokens a
    /// few hundred characters; anything longer is not a token.
    public var maxPushTokenBytes = 4_096
    /// `register_begin` / `register_proof` whisperId-less logins try this many freshly minted
    /// ids before giving up (a collision among 2^50 ids is already improbable).
    public var maxWhisperIDMintAttempts = 8

    // MARK: Groups, calls, presence
    public var maxGroupMembers = 256
    /// An unanswered call ends after this (contract §7, §14).
    public var callRingTimeoutSeconds: Int64 = 60
    /// At most one `typing` per (from, to) per this interval; extra ones are dropped (contract §8).
    public var typingMinIntervalMillis: Int64 = 2_000
    /// Users who exchanged a message within this window are direct peers (contract §8).
    public var directPeerWindowSeconds: Int64 = 30 * 24 * 3600

    public init() {}

    public static let `default` = Limits()

    /// Parser limits for one inbound frame.
    public var frameJSONLimits: JSONLimits {
        JSONLimits(
            maxInputBytes: maxWebSocketMessageBytes,
            maxDepth: maxJSONDepth,
            maxStringBytes: maxWebSocketMessageBytes
        )
    }

    /// Ciphertext cap for an attachment by its `contentType` (contract §14):
    /// `image/*` → image cap, `audio/*` → voice cap, anything else → file cap.
    public func maxAttachmentBytes(contentType: String) -> Int {
        if contentType.utf8.starts(with: "image/".utf8) { return maxImageBytes }
        if contentType.utf8.starts(with: "audio/".utf8) { return maxVoiceBytes }
        return maxFileBytes
    }
}
