import WhisperHTTP
import WhisperProtocol

extension RouteTable {
    /// The public listener: health, readiness and the user endpoints.
    static func publicRoutes(limits: Limits) -> RouteTable {
        var table = RouteTable()
        table.add("GET", "/health", OpsRoutes.health)
        table.add("GET", "/ready", OpsRoutes.ready)
        table.add("GET", "/users/{whisperId}/keys", UserRoutes.keys)
        table.add("PUT", "/backup/contacts", maxBodyBytes: ContactsBackupPayload.maxBodyBytes(limits: limits),
                  UserRoutes.uploadContactsBackup)
        table.add("GET", "/backup/contacts", UserRoutes.downloadContactsBackup)
        table.add("POST", "/reports", maxBodyBytes: ReportPayload.maxBodyBytes(limits: limits), UserRoutes.fileReport)
        table.add("DELETE", "/backup/contacts", UserRoutes.deleteContactsBackup)
        table.add("POST", "/attachments/presign", maxBodyBytes: AttachmentPresignPayload.maxBodyBytes(limits: limits),
                  AttachmentRoutes.presign)
        table.add("GET", "/attachments/{objectKey...}/download", AttachmentRoutes.download)
        return table
    }

    /// The admin listener (loopback by default): health, readiness, metrics and the admin
    /// API (never on the public listener), whose token is checked before anything else.
    static func adminRoutes(limits: Limits) -> RouteTable {
        var table = RouteTable()
        table.guardPaths(under: "/admin", AdminAuth.gate)
        table.add("GET", "/health", OpsRoutes.health)
        table.add("GET", "/ready", OpsRoutes.ready)
        table.add("GET", "/metrics", OpsRoutes.metrics)
        table.add("GET", "/admin/stats", AdminRoutes.stats)
        table.add("GET", "/admin/users/{whisperId}", AdminRoutes.user)
        table.add("POST", "/admin/users/{whisperId}/sessions/revoke", maxBodyBytes: EmptyPayload.maxBodyBytes,
                  AdminRoutes.revokeSessions)
        table.add("GET", "/admin/reports", AdminRoutes.reports)
        table.add("POST", "/admin/reports/{id}/review", maxBodyBytes: AdminReviewPayload.maxBodyBytes(limits: limits),
                  AdminRoutes.review)
        table.add("POST", "/admin/ban", maxBodyBytes: AdminBanPayload.maxBodyBytes(limits: limits), AdminRoutes.ban)
        table.add("POST", "/admin/unban", maxBodyBytes: AdminUnbanPayload.maxBodyBytes, AdminRoutes.unban)
        table.add("GET", "/admin/bans", AdminRoutes.bans)
        table.add("GET", "/admin/audit", AdminRoutes.audit)
        table.add("GET", "/admin/log-level", AdminRoutes.logLevel)
        table.add("PUT", "/admin/log-level", maxBodyBytes: AdminLogLevelPayload.maxBodyBytes, AdminRoutes.setLogLevel)
        table.add("POST", "/admin/attachments/gc/run", maxBodyBytes: EmptyPayload.maxBodyBytes, AdminRoutes.attachmentsGC)
        return table
    }
}
