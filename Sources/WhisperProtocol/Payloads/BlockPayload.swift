/// `block` and `unblock` (docs/protocol.md "Blocking"), client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","whisperId":"WSP-…"}
///
/// answered with `blocked {whisperId}` / `unblocked {whisperId}`; `blocks_list` carries only the
/// common members and is answered with `blocks {whisperIds}`. Shape only (`INVALID_PAYLOAD`):
/// a canonical, checksum-valid Whisper ID. Blocking oneself and the list's size are the block
/// service's checks.
public struct BlockPayload: Sendable, Equatable {
    public static let blockType = "block"
    public static let unblockType = "unblock"
    public static let listType = "blocks_list"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys.union(["whisperId"])

    public let whisperId: WhisperID

    public init(whisperId: WhisperID) {
        self.whisperId = whisperId
    }

    public init(parsing payload: some JSONFieldSource) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        whisperId = try payload.requireWhisperID("whisperId")
    }
}
