import WhisperHTTP
import WhisperProtocol
import WhisperServices

/// The admin routes' authentication (docs/protocol.md "Admin API"): `Authorization: Bearer
/// <token>` with the token of `WHISPER_ADMIN_TOKEN`, compared in constant time
/// (`AdminToken`). No token configured → 503 for every admin route (the API is off, not
/// open); a missing, malformed or wrong token → 401 `AUTH_FAILED`, logged with the client
/// address (never the token).
///
/// The admin listener's route table checks this from the request head, for `/admin` and every
/// path under it, before the body is read or the path is routed (`gate`): a stranger gets the same
/// 401 whatever the path, method or body. The per-route check (`authorized`) is a second line.
enum AdminAuth {
    static let gate: RouteTable.HeadGate = { head, client, context in
        refusal(headers: head.headers, path: head.path, client: client, shared: context.shared)
    }

    static func authorized(_ request: RouteRequest, context: LoopContext, respond: @escaping RouteTable.Respond,
                           then handler: () -> Void) {
        if let refused = refusal(headers: request.http.headers, path: request.http.path, client: request.client,
                                 shared: context.shared) {
            return respond(refused)
        }
        handler()
    }

    /// The answer to a request without the admin token; nil when it carries it.
    static func refusal(headers: HTTPHeaders, path: Substring, client: ClientRef, shared: ServerShared) -> HTTPResponse? {
        guard let configured = shared.config.adminToken else {
            return .error(status: .serviceUnavailable, code: "ADMIN_DISABLED",
                          message: "the admin API is disabled: WHISPER_ADMIN_TOKEN is not set")
        }
        guard let presented = UserAuth.bearerCredential(headers), AdminToken(configured.unredacted).accepts(presented) else {
            shared.metrics.error(.authFailed)
            shared.log.warn("admin_auth_failed", ["ip": .string(client.ip), "path": .string(String(path))])
            return .error(status: .unauthorized, code: ErrorCode.authFailed.rawValue, message: "admin token missing or wrong")
        }
        return nil
    }
}
