import WhisperHTTP

extension RouteTable {
    /// The public listener: health, readiness and the user endpoints.
    static func publicRoutes() -> RouteTable {
        var table = RouteTable()
        table.add("GET", "/health", OpsRoutes.health)
        table.add("GET", "/ready", OpsRoutes.ready)
        table.add("GET", "/users/{whisperId}/keys", UserRoutes.keys)
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
