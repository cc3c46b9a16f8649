import WhisperHTTP
import WhisperServices

/// The user endpoints' authentication (docs/protocol.md "HTTP"): `Authorization: Bearer
/// <sessionToken>`, the same token and the same live-session check as a privileged frame. A
/// missing, malformed, unknown, revoked, refreshed-away or expired token is 401
/// `NOT_REGISTERED` at once (the session store is the truth, nothing is cached here).
enum UserAuth {
    static func session(_ request: RouteRequest, context: LoopContext, respond: @escaping RouteTable.Respond,
                        then handler: @escaping (SessionRecord) -> Void) {
        guard let token = bearerToken(request) else { return respond(.failure(.notRegistered, context: context)) }
        context.auth.authenticate(token.hash) { result in
            switch result {
            case .success(let session): handler(session)
            case .failure(let error): respond(.failure(error, context: context))
            }
        }
    }

    /// The token of `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme is case-insensitive).
    static func bearerToken(_ request: RouteRequest) -> SessionToken? {
        bearerCredential(request.http.headers).flatMap(SessionToken.init(text:))
    }

    /// The credential of `Authorization: Bearer <credential>`, whatever it is (the admin
    /// token too); nil without one.
    static func bearerCredential(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1])
    }
}
