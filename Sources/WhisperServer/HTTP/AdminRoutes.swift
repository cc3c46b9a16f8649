import WhisperHTTP
import WhisperOps
import WhisperProtocol
import WhisperServices

/// The admin API of the admin listener (docs/protocol.md "Admin API"), each route behind
/// `AdminAuth`; the use cases are `AdminService`'s, the bodies `AdminRoutes+Encoding`'s.
enum AdminRoutes {
    /// `GET /admin/stats`: cluster totals from PostgreSQL and the pending counter, and this
    /// node's sockets.
    static let stats: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            context.admin.counts { answer($0, context, respond) { encodeStats($0, context.shared) } }
        }
    }

    /// `GET /admin/reports?status=open|reviewed&cursor=&limit=` (status defaults to `open`).
    static let reports: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            let status: ReportRecord.Status, after: Int64?, limit: Int
            do throws(PayloadError) {
                let query = try pageQuery(request, allowing: ["status", "cursor", "limit"], context)
                guard let parsed = ReportRecord.Status(rawValue: query.status ?? "open") else { throw .invalidValue(field: "status") }
                (status, after, limit) = (parsed, try query.idCursor(), query.limit)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.admin.reports(status: status, after: after, limit: limit) {
                answer($0, context, respond) { encodePage($0, encodeReport) }
            }
        }
    }

    /// `POST /admin/reports/{id}/review {action, note?}` → the report as it now stands.
    static let review: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            let review: AdminReviewPayload
            let id: Int64
            do throws(PayloadError) {
                guard let parsed = request.parameters["id"].flatMap(AdminPageQuery.rowId) else { throw .invalidValue(field: "id") }
                id = parsed
                review = try AdminReviewPayload(body: request.http.body, limits: context.shared.limits)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.admin.review(id, review, clientAddress: request.client.ip) { answer($0, context, respond, encodeReview) }
        }
    }

    /// `POST /admin/ban {whisperId, reason, until?}` → the ban and the sessions it ended.
    static let ban: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            let ban: AdminBanPayload
            do throws(PayloadError) {
                ban = try AdminBanPayload(body: request.http.body, limits: context.shared.limits)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.admin.ban(ban, clientAddress: request.client.ip) { answer($0, context, respond, encodeBanned) }
        }
    }

    /// `POST /admin/unban {whisperId}` → the ban that was lifted; none → 404.
    static let unban: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            let unban: AdminUnbanPayload
            do throws(PayloadError) {
                unban = try AdminUnbanPayload(body: request.http.body)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.admin.unban(unban.whisperId, clientAddress: request.client.ip) { result in
                answer(result, context, respond) { lifted in encodeObject { encodeBan(lifted, &$0) } }
            }
        }
    }

    /// `GET /admin/bans?cursor=&limit=`, by Whisper ID; expired rows are listed with `active: false`.
    static let bans: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            let after: WhisperID?, limit: Int
            do throws(PayloadError) {
                let query = try pageQuery(request, allowing: ["cursor", "limit"], context)
                (after, limit) = (try query.whisperIdCursor(), query.limit)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.admin.bans(after: after, limit: limit) { answer($0, context, respond) { encodePage($0, encodeBan) } }
        }
    }

    /// `GET /admin/audit?cursor=&limit=`, newest first.
    static let audit: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            let before: Int64?, limit: Int
            do throws(PayloadError) {
                let query = try pageQuery(request, allowing: ["cursor", "limit"], context)
                (before, limit) = (try query.idCursor(), query.limit)
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.admin.auditEvents(before: before, limit: limit) {
                answer($0, context, respond) { encodePage($0, encodeAuditEvent) }
            }
        }
    }

    /// `GET /admin/log-level` → this node's minimum log level.
    static let logLevel: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            respond(.json(body: encodeObject { writer in
                writer.member("level", context.shared.log.level.name)
                writer.member("node", context.shared.nodeId)
            }))
        }
    }

    /// `PUT /admin/log-level {level}` → this node's new level and the one before (audited).
    static let setLogLevel: RouteTable.Handler = { request, context, respond in
        AdminAuth.authorized(request, context: context, respond: respond) {
            let level: LogLevel
            do throws(PayloadError) {
                let payload = try AdminLogLevelPayload(body: request.http.body)
                guard let parsed = LogLevel(name: payload.level) else { throw .invalidValue(field: "level") }
                level = parsed
            } catch {
                return respond(.failure(.invalidPayload(error), context: context))
            }
            context.admin.setLogLevel(level, node: context.shared.nodeId, clientAddress: request.client.ip) { result in
                answer(result, context, respond) { previous in
                    encodeObject { writer in
                        writer.member("level", level.name)
                        writer.member("previous", previous.name)
                        writer.member("node", context.shared.nodeId)
                    }
                }
            }
        }
    }

    // MARK: Helpers

    /// The list query; a malformed percent-escape is `INVALID_PAYLOAD` naming the query.
    static func pageQuery(_ request: RouteRequest, allowing names: Set<String>, _ context: LoopContext) throws(PayloadError) -> AdminPageQuery {
        guard let parameters = request.http.queryParameters else { throw .invalidValue(field: "query") }
        return try AdminPageQuery(items: parameters.items.map { ($0.name, $0.value) }, allowed: names, limits: context.shared.limits)
    }

    /// A use case's answer as 200 with `encode`'s body, or its failure as the protocol's error.
    static func answer<T>(_ result: Result<T, ServiceError>, _ context: LoopContext, _ respond: RouteTable.Respond,
                          _ encode: (T) -> [UInt8]) {
        switch result {
        case .success(let value): respond(.json(body: encode(value)))
        case .failure(let error): respond(.failure(error, context: context))
        }
    }
}
