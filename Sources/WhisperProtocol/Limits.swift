/// Every named limit of the server in one place: sizes, TTLs and timeouts, with the defaults
/// of docs/protocol.md ("Limits") and docs/operations.md. Names carry their unit.
///
/// The server builds ONE value from its configuration (`ServerConfig.limits`) and hands it to
/// everything that checks a size, a TTL or a timeout — the WebSocket codec, the frame parser,
/// payload validation, HTTP, the services and the stores — so that a setting raised or
/// lowered in the environment is the same number at every layer. `Limits()` holds the
/// defaults; tests and tools start from it.
public struct Limits: Sendable, Equatable {
    // MARK: WebSocket
    /// A WebSocket message above this closes the socket with 1009, and no frame above it
    /// reaches the JSON parser (`WHISPER_MAX_WS_MESSAGE_BYTES`).
    public var maxWebSocketMessageBytes = 512_000
    /// Nesting depth of a frame's JSON.
    public var maxJSONDepth = 32
    /// `requestId` is echoed in replies, so it is bounded (a UUID needs 36).
    public var maxRequestIdBytes = 128
    /// A socket silent this long is closed (`WHISPER_WS_IDLE_TIMEOUT_SECONDS`).
    public var webSocketIdleTimeoutSeconds = 90
    /// The server pings a socket that has sent nothing for this long (`WHISPER_WS_PING_INTERVAL_SECONDS`).
    public var webSocketPingIntervalSeconds = 30
    /// After sending Close, the peer's Close is awaited this long before TCP is dropped (RFC 6455 §7.1.1).
    public var webSocketCloseTimeoutSeconds = 5

    // MARK: Connections and HTTP
    /// Output queued for one socket past which it is a slow consumer and dropped
    /// (`WHISPER_OUTPUT_BUFFER_LIMIT_BYTES`; at least two whole messages and the largest HTTP
    /// response, `maxHTTPResponseBytes`).
    public var outputBufferLimitBytes = 8 << 20
    /// Connections (HTTP and WebSocket) one IP address may hold open on one node at once; the
    /// next is closed right after accept (`WHISPER_MAX_CONNECTIONS_PER_IP`, 0 = no limit;
    /// public listener only — docs/operations.md "Hostile clients"). Sized for a carrier's NAT
    /// (CGNAT), where thousands of phones share one IPv4 address: the defence against one
    /// abusive address is the connection rate below, this is only a backstop.
    public var maxConnectionsPerIP = 10_000
    /// New connections one IP address (IPv6: one /64) may open per second on one node, after a
    /// burst of `connectionBurstPerIP`; past it they are closed right after accept
    /// (`WHISPER_CONNECTION_RATE_PER_IP`, 0 = no limit; public listener only).
    public var connectionRatePerIP = 50
    /// New connections one IP address may open at once (`WHISPER_CONNECTION_BURST_PER_IP`): a
    /// carrier's reconnect wave after an outage.
    public var connectionBurstPerIP = 1000
    /// A PROXY protocol v2 header from a trusted balancer, TLVs included; longer → closed
    /// (`proxy_header_too_long`). Room for the TLVs AWS NLB, GCP, Azure and HAProxy's SSL info add.
    public var maxProxyHeaderBytes = 2048
    /// Time to receive one whole HTTP request, head and body (`WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS`) → 408.
    public var httpRequestTimeoutSeconds = 10
    /// A keep-alive HTTP connection idle this long between requests is closed (`WHISPER_HTTP_IDLE_TIMEOUT_SECONDS`).
    public var httpIdleTimeoutSeconds = 60
    /// Bytes of one request head, CRLFs included → 431 beyond (RFC 6585 §5).
    public var maxHTTPHeaderBytes = 16 * 1024
    /// Field lines of one request head → 431 beyond.
    public var maxHTTPHeaderCount = 100
    /// Body of a route that does not choose its own cap → 413 beyond, decided from the head.
    public var maxHTTPBodyBytes = 1 << 20

    // MARK: Messages
    /// MAX_TEXT_BYTES: plaintext of a `msgType:"text"` message.
    public var maxTextPlaintextBytes = 8_000
    /// The crypto_box authentication tag added to every ciphertext.
    public var boxTagBytes = 16
    /// Decoded ciphertext of a text message: 8,000 + 16 = 8,016.
    public var maxTextCiphertextBytes: Int { maxTextPlaintextBytes + boxTagBytes }

    /// `reactions` (passed through, docs/protocol.md "Messaging (1:1)"): at most this many emoji keys per message…
    public var maxReactionKeys = 32
    /// …each key 1…this many UTF-8 bytes (an emoji with modifiers and ZWJ joins stays well below).
    public var maxReactionKeyBytes = 64

    // MARK: Attachments (decimal bytes of ciphertext)
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
    /// A presigned upload URL is valid this long (`WHISPER_ATTACHMENT_UPLOAD_URL_TTL_SECONDS`;
    /// the store caps it at 7 days).
    public var attachmentUploadURLTTLSeconds = 900
    /// A presigned download URL is valid this long (`WHISPER_ATTACHMENT_DOWNLOAD_URL_TTL_SECONDS`).
    public var attachmentDownloadURLTTLSeconds = 900
    /// An object referenced by a message is kept at most this long after the newest message
    /// carrying it, downloaded by every recipient or not (`WHISPER_ATTACHMENT_RETENTION_SECONDS`;
    /// contract §15).
    public var attachmentRetentionSeconds: Int64 = 30 * 24 * 3600
    /// An object no message references is deleted this long after its presign
    /// (`WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS`).
    public var attachmentUnreferencedGraceSeconds: Int64 = 24 * 3600
    /// The attachment GC runs on one node per this interval (`WHISPER_ATTACHMENT_GC_INTERVAL_SECONDS`).
    public var attachmentGCIntervalSeconds = 3600
    /// Objects (and undelivered recipient rows) one GC run looks at; the rest wait for the next.
    public var attachmentGCBatch = 500
    /// One S3 DELETE may take this long before it counts as failed (retried next run).
    public var attachmentDeleteTimeoutSeconds = 10
    /// `POST /reports` `details`: a moderator's note, not a document.
    public var maxReportDetailsBytes = 2_000
    /// Decoded contacts-backup blob.
    public var maxContactsBackupBytes = 5_000_000

    /// The largest HTTP response the server sends: a full contacts backup as JSON. The output
    /// cap of a connection must hold it, or its download would be dropped as a slow consumer.
    public var maxHTTPResponseBytes: Int { ContactsBackupPayload.maxBodyBytes(limits: self) }

    // MARK: Pending queue
    public var pendingTTLSeconds: Int64 = 72 * 3600
    public var fetchPendingDefaultLimit = 50
    public var fetchPendingMaxLimit = 200
    /// Messages one recipient's pending queue may hold; a send beyond it gets `RATE_LIMITED`
    /// (`WHISPER_MAX_PENDING_PER_USER`).
    public var maxPendingPerUser = 10_000
    /// Events (`message_delivered`, …) kept for an offline user; the oldest go first.
    public var maxKeptEventsPerUser = 1_000

    // MARK: Sessions and time
    /// `WHISPER_SESSION_TTL_SECONDS`.
    public var sessionTTLSeconds: Int64 = 7 * 24 * 3600
    /// `WHISPER_CHALLENGE_TTL_SECONDS`.
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
    /// Members of one group, the owner included (`WHISPER_MAX_GROUP_MEMBERS`); a create or
    /// update beyond it gets `INVALID_PAYLOAD`.
    public var maxGroupMembers = 256
    /// `title` of a group, in UTF-8 bytes (at least 1).
    public var maxGroupTitleBytes = 256
    /// `groups_list` pages: groups per page when `limit` is absent, and the most a page may
    /// hold (a page of 200 stays under 350 KB even with titles of 256 escaped bytes).
    public var groupsListDefaultLimit = 100
    public var groupsListMaxLimit = 200
    /// A loop's cached membership of a group is re-read after this even when no change
    /// notice arrived (docs/operations.md "Groups"); notices and the per-send epoch check make it
    /// a bound on memory and on a lost notice, not on correctness.
    public var groupMembershipCacheSeconds: Int64 = 60
    /// Groups one loop's membership cache holds before it starts over.
    public var groupMembershipCacheCapacity = 100_000
    /// An unanswered call ends after this, callee online or not (`WHISPER_CALL_RING_TIMEOUT_SECONDS`).
    public var callRingTimeoutSeconds: Int64 = 60
    /// Every node looks for calls past their ring deadline this often, so a timeout fires
    /// at most this late, even when the node that started the call has died.
    public var callSweepIntervalMillis: Int64 = 500
    /// An offer written to a live-looking socket that no `call_received` confirms within this
    /// is pushed (VoIP/FCM call push) as to an offline callee, and stays held for its next
    /// login (`WHISPER_CALL_CONFIRM_TIMEOUT_MS`; contract §15). Found by the same sweep.
    public var callConfirmTimeoutMillis: Int64 = 2000
    /// An answered call's state lives this long after its last signal (ICE restarts renew it).
    public var callAnsweredTTLSeconds: Int64 = 12 * 3600
    /// An ended call is remembered this long, so late signals get `NOT_FOUND` and its
    /// `callId` cannot be taken over.
    public var callEndedTTLSeconds: Int64 = 120
    /// Decoded `ciphertext` of a call signal: an SDP offer with video and many codecs is a
    /// few KB, a candidate a few hundred bytes.
    public var maxCallCiphertextBytes = 65_536
    /// Caller's ICE candidates kept with a held offer for a callee that has not received it.
    public var maxHeldCallCandidates = 64
    /// Lifetime of the TURN credentials `get_turn_credentials` issues (`WHISPER_TURN_TTL_SECONDS`).
    public var turnCredentialTTLSeconds = 43_200
    /// At most one `typing` per (from, to) per this interval; extra ones are dropped.
    public var typingMinIntervalMillis: Int64 = 2_000
    /// Users who exchanged a message within this window are direct peers.
    public var directPeerWindowSeconds: Int64 = 30 * 24 * 3600
    /// A user's peers hear of its status at most once per this interval; a change within it
    /// is announced when it ends, if it still holds (`WHISPER_PRESENCE_MIN_INTERVAL_MS`).
    public var presenceMinIntervalMillis: Int64 = 10_000
    /// `offline` is announced only after the user stayed away this long, so a phone that
    /// reconnects within it is never seen offline (`WHISPER_PRESENCE_OFFLINE_GRACE_MS`).
    public var presenceOfflineGraceMillis: Int64 = 5_000
    /// One announcement reaches at most this many direct peers, the most recent first.
    public var maxPresencePeers = 1_000
    /// `presence:{whisperId}` (what the peers were last told) lives this long after the
    /// user's last login, logout or announcement.
    public var presenceRecordTTLSeconds: Int64 = 24 * 3600
    /// Due announcements (and users of dead nodes) handled per sweep, per node.
    public var presenceSweepBatch = 500
    /// Identities one user may block (`WHISPER_MAX_BLOCKS_PER_USER`); a `block` beyond it gets
    /// `INVALID_PAYLOAD` until the user unblocks someone (docs/protocol.md "Blocking").
    public var maxBlocksPerUser = 10_000

    // MARK: Admin API (docs/protocol.md "Admin API")
    /// Items per page of an admin list when `limit` is not given…
    public var adminPageDefaultLimit = 50
    /// …and the most a `limit` may ask for (400 beyond).
    public var adminPageMaxLimit = 200
    /// `POST /admin/ban` `reason`: a line for the operators, not a document.
    public var maxBanReasonBytes = 500
    /// `POST /admin/reports/{id}/review` `note`.
    public var maxAdminNoteBytes = 2_000

    // MARK: Nodes
    /// A node renews its liveness key this often (`WHISPER_NODE_HEARTBEAT_SECONDS`)…
    public var nodeHeartbeatSeconds = 5
    /// …which expires after this: routes to a node silent this long are dropped, and its
    /// users are announced offline (`WHISPER_NODE_TTL_SECONDS`).
    public var nodeTTLSeconds = 15
    /// Every node sweeps due presence announcements and dead nodes this often.
    public var presenceSweepIntervalMillis: Int64 = 1_000

    // MARK: Push (docs/protocol.md "Push wake-ups")
    /// At most one message wake-up per user per this window, cluster-wide; calls are never
    /// coalesced (`WHISPER_PUSH_COALESCE_SECONDS`).
    public var pushCoalesceSeconds = 30
    /// Jobs waiting for one provider's sender; a job beyond it is dropped and counted.
    public var pushQueueCapacity = 10_000
    /// Attempts per push, the first included (429, 5xx and transport errors are retried).
    public var pushMaxAttempts = 4
    /// The first retry waits about this long (with jitter), each next one twice as long…
    public var pushRetryBaseMillis: Int64 = 500
    /// …and no retry waits longer, whatever `Retry-After` asks for.
    public var pushRetryMaxMillis: Int64 = 60_000
    /// One request to a provider (or its OAuth endpoint), connection included.
    public var pushRequestTimeoutSeconds = 10
    /// A message wake-up that APNs cannot deliver now is kept by Apple this long (the pending
    /// queue's TTL is longer: the app fetches whatever is there when it wakes).
    public var pushWakeExpirySeconds = 24 * 3600

    /// The longest one push can take, its retries included (every attempt timing out, every
    /// backoff at its maximum): an owed wake-up is sent again only after this, so a send still
    /// under way is not doubled (`PushService`). 220 s by default.
    public var pushInFlightMillis: Int64 {
        let attempts = Int64(max(1, pushMaxAttempts))
        return attempts * Int64(pushRequestTimeoutSeconds) * 1000 + (attempts - 1) * pushRetryMaxMillis
    }

    // MARK: Readiness and drain (docs/operations.md "Health, readiness, metrics", "Rolling restarts")
    /// `/ready` reuses one node-wide result this long, so load-balancer probes reach Redis and
    /// PostgreSQL at most once per interval whatever their number.
    public var readinessCacheMillis: Int64 = 1_000
    /// The canary published on the node's own readiness channel must come back this fast.
    public var readinessCanaryTimeoutMillis: Int64 = 1_000
    /// A check that has not answered after this counts as failed: a dependency that stalls
    /// (no error, no answer) must turn `/ready` 503, not make it wait.
    public var readinessCheckTimeoutMillis: Int64 = 2_000
    /// SIGTERM: `/ready` answers 503 this long before the first socket is closed, for the load
    /// balancer to notice (`WHISPER_DRAIN_GRACE_SECONDS`)…
    public var drainGraceSeconds = 5
    /// …then each WebSocket is closed (1001) at a random moment within this, so that the other
    /// nodes are not stampeded (`WHISPER_DRAIN_WINDOW_SECONDS`)…
    public var drainWindowSeconds = 5
    /// …with a reconnect hint `retryAfterMs` drawn from 0 up to this (docs/protocol.md "Close codes").
    public var drainReconnectJitterMillis = 1_000

    public init() {}

    /// The defaults: for tests and tools. The server uses `ServerConfig.limits`.
    public static let `default` = Limits()

    /// Parser limits for one inbound frame.
    public var frameJSONLimits: JSONLimits {
        JSONLimits(
            maxInputBytes: maxWebSocketMessageBytes,
            maxDepth: maxJSONDepth,
            maxStringBytes: maxWebSocketMessageBytes
        )
    }

    /// Ciphertext cap for an attachment by its `contentType`:
    /// `image/*` → image cap, `audio/*` → voice cap, anything else → file cap.
    public func maxAttachmentBytes(contentType: String) -> Int {
        if contentType.utf8.starts(with: "image/".utf8) { return maxImageBytes }
        if contentType.utf8.starts(with: "audio/".utf8) { return maxVoiceBytes }
        return maxFileBytes
    }
}
