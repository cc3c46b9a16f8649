import WhisperProtocol

/// Which signed frame an envelope travels in (spec §3.5): its `messageType` in the signed bytes,
/// and what stands in the `toOrGroupId` position (contract §5, §7).
public enum EnvelopeKind: Equatable, Sendable {
    /// `send_message`: signed over the recipient's id.
    case message
    /// `group_send_message`: one per member, signed over the group id exactly as written.
    case groupMessage(groupId: String)
    /// `call_initiate`, `call_answer`, `call_ice_candidate`, `call_end`: the call id in the
    /// `messageId` position, the peer in `to`.
    case call(CallSignalKind)

    /// The `messageType` line of the signed bytes (also the frame type).
    public var messageType: String {
        switch self {
        case .message: SendMessagePayload.type
        case .groupMessage: SendMessagePayload.groupType
        case .call(let kind): kind.rawValue
        }
    }

    func toOrGroupId(to: WhisperID) -> String {
        switch self {
        case .groupMessage(let groupId): groupId
        case .message, .call: to.string
        }
    }
}
