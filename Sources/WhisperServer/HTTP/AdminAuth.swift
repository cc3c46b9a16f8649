import WhisperHTTP
import WhisperProtocol
import WhisperServices

/// The admin routes' authentication (docs/protocol.md "Admin API"): `Authorization: Bearer
/// <token>` with the token of `WHISPER_ADMIN_TOKEN`, compared in constant time
/// (`AdminToken`). No token configured → 503 for every admin route (the API is off, not
/// open); a missing, malformed or wrong token → 401 `AUTH_FAILED`, logged with the client
/// address (never the token).
enum AdminAuth {
    static func authorized(_ request: RouteRequest, context: LoopContext, respond: @escaping RouteTable.Respond,
                           then handler: () -> Void) {
        guard let configured = context.shared.config.adminToken else {
            return respond(.error(status: .serviceUnavailable, code: "ADMIN_DISABLED",
                                  message: "the admin API is disabled: WHISPER_ADMIN_TOKEN is not set"))
        }
        guard let presented = UserAuth.bearerCredential(request),
              AdminToken(configured.unredacted).accepts(presented)
        else {
            context.shared.metrics.error(.authFailed)
            context.shared.log.warn("admin_auth_failed", ["ip": .string(request.client.ip),
                                                          "path": .string(String(request.http.path))])
            return respond(.error(status: .unauthorized, code: ErrorCode.authFailed.rawValue,
                                  message: "admin token missing or wrong"))
        }
        handler()
    }
}
