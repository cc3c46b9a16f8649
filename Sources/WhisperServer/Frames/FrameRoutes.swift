import WhisperProtocol
import WhisperServices

/// How a frame type is handled. The access level is part of the route, so whether a frame
/// needs a session is declared in the table, not decided inside handlers.
enum FrameRoute: Sendable {
    typealias OpenHandler = @Sendable (InboundFrame, FrameReply) -> Void
    typealias PrivilegedHandler = @Sendable (InboundFrame, FrameReply, SessionRecord) -> Void

    /// Allowed before login.
    case open(OpenHandler)
    /// Needs versions = 1 and a valid session; the handler gets the session.
    case privileged(PrivilegedHandler)
}

/// The dispatch table: every frame type the server accepts, with its access level and its
/// handler. A new frame type is one line here and one handler in `Frames/`.
enum FrameRoutes {
    static let table: [String: FrameRoute] = [
        "ping": .open(PingFrames.ping),
        RegisterBeginPayload.type: .open(IdentityFrames.registerBegin),
        RegisterProofPayload.type: .open(IdentityFrames.registerProof),
        "session_refresh": .privileged(IdentityFrames.sessionRefresh),
        "logout": .privileged(IdentityFrames.logout),
        UpdateTokensPayload.type: .privileged(IdentityFrames.updateTokens),
        DeleteAccountPayload.type: .privileged(AccountFrames.deleteAccount),
        SendMessagePayload.type: .privileged(MessagingFrames.sendMessage),
        FetchPendingPayload.type: .privileged(MessagingFrames.fetchPending),
        DeliveryReceiptPayload.type: .privileged(MessagingFrames.deliveryReceipt),
        "get_turn_credentials": .privileged(CallFrames.getTurnCredentials),
        CallSignalKind.initiate.rawValue: .privileged(CallFrames.signal(.initiate)),
        CallSignalKind.answer.rawValue: .privileged(CallFrames.signal(.answer)),
        CallSignalKind.iceCandidate.rawValue: .privileged(CallFrames.signal(.iceCandidate)),
        CallSignalKind.end.rawValue: .privileged(CallFrames.signal(.end)),
        CallReceivedPayload.type: .privileged(CallFrames.received),
        TypingPayload.type: .privileged(PresenceFrames.typing),
        GroupCreatePayload.type: .privileged(GroupsFrames.create),
        GroupUpdatePayload.type: .privileged(GroupsFrames.update),
        GroupGetPayload.type: .privileged(GroupsFrames.get),
        GroupsListPayload.type: .privileged(GroupsFrames.list),
        SendMessagePayload.groupType: .privileged(MessagingFrames.sendMessage),
        BlockPayload.blockType: .privileged(BlockingFrames.block),
        BlockPayload.unblockType: .privileged(BlockingFrames.unblock),
        BlockPayload.listType: .privileged(BlockingFrames.list),
    ]
}
