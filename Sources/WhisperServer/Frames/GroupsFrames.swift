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

    /// `group_get {groupId}` → `group_info {groupId, title, memberIds, ownerId, version}`; a
    /// group the caller is not in is `NOT_FOUND`, like one that does not exist.
    static let get: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in try GroupGetPayload(parsing: frame.payload) })
        else { return }
        answer(reply, { $0.get(request, session: session, client: reply.socket.client, completion: $1) }) {
            GroupFrames.info($0, requestId: frame.requestId)
        }
    }

    /// `groups_list {cursor?, limit?}` → `group_list {groups: [{groupId, title, ownerId, version}], nextCursor?}`.
    static let list: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in
            try GroupsListPayload(parsing: frame.payload, limits: reply.limits)
        }) else { return }
        answer(reply, { $0.list(request, session: session, client: reply.socket.client, completion: $1) }) {
            GroupFrames.list($0.groups, nextCursor: $0.nextCursor, requestId: frame.requestId)
        }
    }

    /// Runs one group operation as an in-flight request and answers with `encode(result)` or
    /// the error.
    private static func answer<T>(_ reply: FrameReply,
                                  _ operation: (GroupService, @escaping GroupService.Completion<T>) -> Void,
                                  _ encode: @escaping (T) -> [UInt8]) {
        let socket = reply.socket
        reply.async { done in
            operation(socket.context.groups) { result in
                defer { done() }
                switch result {
                case .success(let value): socket.send(encode(value))
                case .failure(let error): reply.fail(error)
                }
            }
        }
    }
}
