import WhisperHTTP
import WhisperOps
import WhisperProtocol
import WhisperServices

extension AdminRoutes {
    /// `GET /admin/users/{whisperId}` → what the database knows about the identity: status,
    /// ban, devices (docs/protocol.md "GET /admin/users/{whisperId}"); unknown → 404.
    static let user: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            guard let whisperId = whisperId(request) else {
                return respond(.failure(.invalidPayload(.invalidValue(field: "whisperId")), context: context))
            }
            context.admin.user(whisperId) { answer($0, context, respond, encodeUser) }
        }
    }

    /// `POST /admin/users/{whisperId}/sessions/revoke` (no body, or `{}`) → `{revoked}`: logs
    /// the identity out on every node without a ban, audited; unknown or deleted → 404.
    static let revokeSessions: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            let whisperId: WhisperID
            do throws(PayloadError) {
                guard let parsed = Self.whisperId(request) else { throw .invalidValue(field: "whisperId") }
                whisperId = parsed
                _ = try EmptyPayload(body: request.http.body)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.admin.revokeSessions(of: whisperId, clientAddress: request.client.ip) { result in
                answer(result, context, respond) { revoked in encodeObject { $0.member("revoked", Int64(revoked)) } }
            }
        }
    }

    private static func whisperId(_ request: RouteRequest) -> WhisperID? {
        request.parameters["whisperId"].flatMap(WhisperID.validate)
    }

    static func encodeUser(_ user: AdminUserRecord) -> [UInt8] {
        encodeObject { writer in
            writer.member("whisperId", user.whisperId)
            writer.member("status", user.status(atMillis: WallTime.now().epochMillis).rawValue)
            optional("registeredAt", user.registeredAtMillis, &writer)
            optional("deletedAt", user.deletedAtMillis, &writer)
            optional("lastActiveAt", user.lastActiveAtMillis, &writer)
            writer.key("ban")
            if let ban = user.ban {
                writer.beginObject()
                encodeBan(ban, &writer)
                writer.endObject()
            } else {
                writer.null()
            }
            writer.member("deviceCount", user.deviceCount)
            writer.key("devices")
            writer.beginArray()
            for device in user.devices {
                writer.beginObject()
                writer.member("deviceId", device.deviceId)
                writer.member("platform", device.platform)
                writer.member("pushToken", device.hasPushToken)
                writer.member("voipToken", device.hasVoipToken)
                writer.member("createdAt", device.createdAtMillis)
                writer.member("lastActiveAt", device.lastActiveAtMillis)
                writer.endObject()
            }
            writer.endArray()
        }
    }
}
