import WhisperHTTP
import WhisperProtocol

/// `/health`, `/ready` and `/metrics` (docs/protocol.md "HTTP"; docs/operations.md "Health, readiness, metrics").
enum OpsRoutes {
    /// 200 while the process serves, draining or not.
    static let health: RouteTable.Handler = { _, _, respond in
        respond(.json(body: Array(#"{"status":"ok"}"#.utf8)))
    }

    /// 200 only when PostgreSQL and Redis answer, migrations are current and the node is not
    /// draining; otherwise 503 naming each failed check.
    static let ready: RouteTable.Handler = { _, context, respond in
        Readiness.check(context) { report in
            var writer = JSONWriter()
            writer.beginObject()
            writer.member("status", report.isReady ? "ready" : "not_ready")
            writer.key("checks")
            writer.beginObject()
            for (name, ok) in report.checks { writer.member(name, ok ? "ok" : "fail") }
            writer.endObject()
            writer.endObject()
            respond(.json(status: report.isReady ? .ok : .serviceUnavailable, body: writer.bytes))
        }
    }

    /// Prometheus text exposition, process metrics included.
    static let metrics: RouteTable.Handler = { _, context, respond in
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
        respond(HTTPResponse(status: .ok, headers: headers, body: Array(context.shared.metrics.exposition().utf8)))
    }
}
