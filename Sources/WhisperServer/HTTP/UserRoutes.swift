import WhisperHTTP
import WhisperProtocol
import WhisperServices

/// The user endpoints of the public listener (docs/protocol.md "HTTP"), each behind `UserAuth`.
enum UserRoutes {
    /// `GET /users/{whisperId}/keys` → `{whisperId, encPublicKey, signPublicKey, status}`.
    /// A malformed id or a bad checksum is 400 `INVALID_PAYLOAD`, an unknown one 404.
    static let keys: RouteTable.Handler = { request, context, respond in
        UserAuth.session(request, context: context, respond: respond) { _ in
            guard let text = request.parameters["whisperId"], let whisperId = WhisperID.validate(text) else {
                return respond(.failure(.invalidPayload(.invalidValue(field: "whisperId")), context: context))
            }
            context.keys.lookup(whisperId) { result in
                switch result {
                case .success(let entry):
                    var writer = JSONWriter()
                    writer.beginObject()
                    writer.member("whisperId", entry.whisperId.string)
                    writer.member("encPublicKey", Base64.encode(entry.keys.encPublicKey))
                    writer.member("signPublicKey", Base64.encode(entry.keys.signPublicKey))
                    writer.member("status", entry.isBanned ? "banned" : "active")
                    writer.endObject()
                    respond(.json(body: writer.bytes))
                case .failure(let error):
                    respond(.failure(error, context: context))
                }
            }
        }
    }
}
