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
        return table
    }

    /// The admin listener (loopback by default): health, readiness and metrics.
    static func adminRoutes() -> RouteTable {
        var table = RouteTable()
        table.add("GET", "/health", OpsRoutes.health)
        table.add("GET", "/ready", OpsRoutes.ready)
        table.add("GET", "/metrics", OpsRoutes.metrics)
        return table
    }
}
