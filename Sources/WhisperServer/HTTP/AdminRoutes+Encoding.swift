import WhisperOps
import WhisperProtocol
import WhisperServices

/// The admin API's JSON bodies (docs/protocol.md "Admin API"): ids as strings, times as
/// epoch milliseconds, absent values as `null`; lists as `{"items":[…],"nextCursor":…}`.
extension AdminRoutes {
    static func encodeObject(_ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        body(&writer)
        writer.endObject()
        return writer.bytes
    }

    static func encodePage<T>(_ page: AdminPage<T>, _ item: (T, inout JSONWriter) -> Void) -> [UInt8] {
        encodeObject { writer in
            writer.key("items")
            writer.beginArray()
            for element in page.items {
                writer.beginObject()
                item(element, &writer)
                writer.endObject()
            }
            writer.endArray()
            writer.member("nextCursor", page.nextCursor)
        }
    }

    /// `users`, `openReports` and `activeBans` are cluster-wide (PostgreSQL);
    /// `pendingMessages` is the cluster's pending-queue total as of the last heartbeat;
    /// `connections` and `authenticatedConnections` are this node's sockets.
    static func encodeStats(_ counts: AdminCounts, _ shared: ServerShared) -> [UInt8] {
        encodeObject { writer in
            writer.member("users", counts.users)
            writer.member("openReports", counts.openReports)
            writer.member("activeBans", counts.activeBans)
            writer.member("pendingMessages", Int64(shared.metrics.base.pendingMessages.value))
            writer.member("node", shared.nodeId)
            writer.member("connections", Int64(shared.metrics.base.wsConnections.value))
            writer.member("authenticatedConnections", Int64(shared.metrics.authenticatedConnections.value))
            writer.member("serverTime", WallTime.now().epochMillis)
        }
    }

    static func encodeReport(_ report: ReportRecord, _ writer: inout JSONWriter) {
        writer.member("id", String(report.id))
        writer.member("reporterId", report.reporterId)
        writer.member("whisperId", report.whisperId)
        writer.member("reason", report.reason)
        writer.member("details", report.details)
        writer.member("messageId", report.messageId)
        writer.member("verified", report.verified)
        writer.member("status", report.status.rawValue)
        writer.member("createdAt", report.createdAtMillis)
        optional("reviewedAt", report.reviewedAtMillis, &writer)
        writer.member("action", report.action?.rawValue)
        writer.member("note", report.note)
    }

    /// A review: the report as it now stands, and whether this call reviewed it.
    static func encodeReview(_ outcome: ReviewResult) -> [UInt8] {
        encodeObject { writer in
            writer.key("report")
            writer.beginObject()
            encodeReport(outcome.report, &writer)
            writer.endObject()
            writer.member("changed", outcome.changed)
        }
    }

    static func encodeBan(_ ban: BanRecord, _ writer: inout JSONWriter) {
        writer.member("whisperId", ban.whisperId)
        writer.member("reason", ban.reason)
        writer.member("createdAt", ban.createdAtMillis)
        optional("until", ban.untilMillis, &writer)
        writer.member("active", ban.isActive(atMillis: WallTime.now().epochMillis))
    }

    static func encodeBanned(_ banned: AdminService.Banned) -> [UInt8] {
        encodeObject { writer in
            encodeBan(banned.ban, &writer)
            writer.member("revokedSessions", Int64(banned.revokedSessions))
        }
    }

    static func encodeAuditEvent(_ event: AuditRecord, _ writer: inout JSONWriter) {
        writer.member("id", String(event.id))
        writer.member("action", event.action)
        writer.member("target", event.target)
        writer.member("actor", event.actor)
        writer.member("clientAddress", event.clientAddress)
        // `details` is a jsonb column the server itself wrote, printed back by PostgreSQL.
        writer.member("details", raw: Array(event.detailsJSON.utf8)[...])
        writer.member("createdAt", event.createdAtMillis)
    }

    static func optional(_ key: String, _ value: Int64?, _ writer: inout JSONWriter) {
        writer.key(key)
        if let value { writer.int(value) } else { writer.null() }
    }
}
