import WhisperProtocol
import WhisperServices

/// Frame handlers of blocking (docs/protocol.md "Blocking"): payload validation
/// (`INVALID_PAYLOAD` before any I/O), the `BlockService` call, the reply frames.
enum BlockingFrames {
    /// `block {whisperId}` → `blocked {whisperId}`.
    static let block: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in try BlockPayload(parsing: frame.fields) })
        else { return }
        answer(reply, "blocked", request.whisperId) { $0.block(request.whisperId, session: session, client: $1, completion: $2) }
    }

    /// `unblock {whisperId}` → `unblocked {whisperId}`.
    static let unblock: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in try BlockPayload(parsing: frame.fields) })
        else { return }
        answer(reply, "unblocked", request.whisperId) { $0.unblock(request.whisperId, session: session, client: $1, completion: $2) }
    }

    /// `blocks_list {}` → `blocks {whisperIds}`, oldest block first.
    static let list: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard reply.validate({ () throws(PayloadError) in try PrivilegedPayload.requireOnlyCommonKeys(frame.fields) }) != nil
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.blocks.list(session: session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success(let blocked): reply.send("blocks") { $0.member("whisperIds", strings: blocked.map(\.string)) }
                case .failure(let error): reply.fail(error)
                }
            }
        }
    }

    /// Runs a block or an unblock as an in-flight request and answers `type {whisperId}` or the error.
    private static func answer(_ reply: FrameReply, _ type: String, _ whisperId: WhisperID,
                               _ operation: (BlockService, ClientRef, @escaping BlockService.Completion<Void>) -> Void) {
        let socket = reply.socket
        reply.async { done in
            operation(socket.context.blocks, socket.client) { result in
                defer { done() }
                switch result {
                case .success: reply.send(type) { $0.member("whisperId", whisperId.string) }
                case .failure(let error): reply.fail(error)
                }
            }
        }
    }
}
