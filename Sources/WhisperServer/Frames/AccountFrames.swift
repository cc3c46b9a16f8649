import WhisperProtocol
import WhisperServices

/// Frame handler of account deletion (docs/protocol.md "delete_account → account_deleted").
enum AccountFrames {
    /// `delete_account {whisperId, timestamp, sig}` → `account_deleted {}`, then this socket
    /// closes with 4004. Every other socket of the identity, on any node, got
    /// `session_revoked {reason:"account_deleted"}` and 4004 from the service's revocation.
    static let deleteAccount: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in try DeleteAccountPayload(parsing: frame.payload) })
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.accountDeletion.delete(request, session: session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success:
                    if socket.authenticated?.whisperId == session.whisperId { socket.context.registry.unbind(socket) }
                    reply.send("account_deleted") { _ in }
                    socket.close(code: RevocationReason.accountDeleted.closeCode ?? 4004, reason: "account deleted")
                case .failure(let error):
                    reply.fail(error)
                }
            }
        }
    }
}
