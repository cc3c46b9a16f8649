extension ServerConfig {
    /// Key/value pairs for the start-up log line. Secrets appear only as `set`/`unset`, and the
    /// database and Redis URLs have their passwords replaced by `***`.
    public func redactedSummary() -> [(String, String)] {
        var summary: [(String, String)] = [
            ("publicAddr", publicAddress.description),
            ("adminAddr", adminAddress.description),
            ("database", databaseURL.map(URLRedaction.redact) ?? "unset"),
            ("redis", redis.description),
            ("redisPrefix", redisPrefix),
            ("adminToken", adminToken == nil ? "unset (admin API disabled)" : "set"),
            ("tls", tls.map { "cert=\($0.certificatePath) key=\($0.keyPath)" } ?? "off"),
            ("proxyProtocol", proxyProtocol.map { "v2 from \($0.trustedSources.map(\.description).joined(separator: ","))" } ?? "off"),
            ("turn", turn.map { "urls=\($0.urls.joined(separator: ",")) secret=set ttl=\(limits.turnCredentialTTLSeconds)s" } ?? "off"),
            ("s3", s3.map {
                "endpoint=\(URLRedaction.redact($0.endpoint)) publicEndpoint=\(URLRedaction.redact($0.publicEndpoint)) region=\($0.region) bucket=\($0.bucket) "
                    + "pathStyle=\($0.pathStyle) accessKey=set secretKey=set"
            } ?? "off (attachment routes answer 503)"),
            ("logLevel", logLevel.name),
            ("threads", String(threads)),
            ("migrateOnStart", String(migrateOnStart)),
            ("pgPoolSize", String(postgresPoolSize)),
            ("pgLoopSessions", String(postgresLoopSessions)),
            ("wsIdleTimeoutSeconds", String(limits.webSocketIdleTimeoutSeconds)),
            ("wsPingIntervalSeconds", String(limits.webSocketPingIntervalSeconds)),
            ("maxWsMessageBytes", String(limits.maxWebSocketMessageBytes)),
            ("outputBufferLimitBytes", String(limits.outputBufferLimitBytes)),
            ("maxConnectionsPerIP", limits.maxConnectionsPerIP == 0 ? "off" : String(limits.maxConnectionsPerIP)),
            ("connectionRatePerIP", limits.connectionRatePerIP == 0 ? "off"
                : "\(limits.connectionRatePerIP)/s burst \(limits.connectionBurstPerIP)"),
            ("httpRequestTimeoutSeconds", String(limits.httpRequestTimeoutSeconds)),
            ("httpIdleTimeoutSeconds", String(limits.httpIdleTimeoutSeconds)),
            ("drainTimeoutSeconds", String(drainTimeoutSeconds)),
            ("challengeTTLSeconds", String(limits.challengeTTLSeconds)),
            ("sessionTTLSeconds", String(limits.sessionTTLSeconds)),
            ("maxPendingPerUser", String(limits.maxPendingPerUser)),
            ("testEcho", testEcho ? "ON (TEST ONLY, never in production)" : "off"),
        ]
        for action in RateLimitAction.allCases {
            summary.append(("rate.\(action.rawValue)",
                            "\(rateLimits[action, .identity]) ip \(rateLimits[action, .ip])"))
        }
        if !unrecognizedVariables.isEmpty {
            summary.append(("unrecognized", unrecognizedVariables.map(\.name).joined(separator: ",")))
        }
        return summary
    }
}

/// Printing, `dump`-ing or reflecting a configuration shows the redacted summary, never the
/// database password that `databaseURL` holds in clear.
extension ServerConfig: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        redactedSummary().map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: redactedSummary().map { (label: $0.0, value: $0.1 as Any) }, displayStyle: .struct)
    }
}
