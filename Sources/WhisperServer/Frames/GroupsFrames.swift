import WhisperProtocol
import WhisperServices

/// Frame handlers of groups (docs/protocol.md "Groups"): payload validation (`INVALID_PAYLOAD` before
/// any I/O), the `GroupService` call, the reply frames. `group_send_message` is
/// `MessagingFrames.sendMessage` (the payload type tells the two apart).
enum GroupsFrames {
    /// `group_create {title, memberIds}` → `group_created {groupId, title, memberIds, ownerId}`.
    static let create: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in
            try GroupCreatePayload(parsing: frame.payload, limits: reply.limits)
        }) else { return }
        answer(reply, { $0.create(request, session: session, client: reply.socket.client, completion: $1) }) {
            GroupFrames.created($0, requestId: frame.requestId)
        }
    }

    /// `group_update {groupId, addMembers?, removeMembers?, title?}` → `group_updated {…}`.
    static let update: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in
            try GroupUpdatePayload(parsing: frame.payload, limits: reply.limits)
        }) else { return }
        answer(reply, { $0.update(request, session: session, client: reply.socket.client, completion: $1) }) {
            GroupFrames.updated($0, requestId: frame.requestId)
        }
    }

    /// Runs one group operation as an in-flight request and answers with `encode(state)` or
    /// the error.
    private static func answer(_ reply: FrameReply,
                               _ operation: (GroupService, @escaping GroupService.Completion<GroupFrames.State>) -> Void,
                               _ encode: @escaping (GroupFrames.State) -> [UInt8]) {
        let socket = reply.socket
        reply.async { done in
            operation(socket.context.groups) { result in
                defer { done() }
                switch result {
                case .success(let state): socket.send(encode(state))
                case .failure(let error): reply.fail(error)
                }
            }
        }
    }
}
