import Foundation
import Synchronization
import Testing
import WhisperTesting

/// The HTTP surface of the runtime foundation, over real sockets against a real server.
@Suite(.serialized) struct HTTPServingTests {
    @Test func health_answers200_onBothListeners() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        for port in [server.publicPort, server.adminPort] {
            let response = try TestHTTP.get(port: port, "/health")
            #expect(response.status == 200)
            #expect(response.json?["status"] as? String == "ok")
        }
    }

    @Test func ready_reportsEveryCheck_whenDependenciesAreUp() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        // Not ready until the subscriber is up and the first heartbeat has written node:{id}.
        #expect(await eventually(within: 10, every: 0.05) { (try? TestHTTP.get(port: server.publicPort, "/ready"))?.status == 200 })
        let response = try TestHTTP.get(port: server.publicPort, "/ready")
        let checks = response.json?["checks"] as? [String: String]
        #expect(checks == ["postgres": "ok", "redis": "ok", "migrations": "ok", "subscription": "ok", "heartbeat": "ok",
                           "draining": "ok"])
    }

    /// A scrape answered the moment the admin listener accepts (a Prometheus that was already
    /// polling a restarting node) has the collected families too: their collector is registered
    /// before any listener opens.
    @Test func theVeryFirstScrape_hasTheReconnectFamilies() async throws {
        for _ in 0..<3 {
            let port = try TestSocket.freePort()
            let first = Mutex<String?>(nil)
            let deadline = Date().addingTimeInterval(20)
            let poller = Thread {
                while Date() < deadline {
                    if let response = try? TestHTTP.get(port: port, "/metrics") {
                        let text = response.text
                        first.withLock { $0 = text }
                        return
                    }
                }
            }
            poller.start()
            let server = try await TestServer(["WHISPER_ADMIN_ADDR": "127.0.0.1:\(port)", "WHISPER_THREADS": "4"])
            defer { server.stop() }
            #expect(await eventually { first.withLock { $0 } != nil })
            let text = first.withLock { $0 } ?? ""
            for name in ["whisper_redis_reconnects_total", "whisper_postgres_reconnects_total"] {
                #expect(text.contains("# TYPE \(name) counter\n"), "the first scrape has no \(name)")
            }
        }
    }

    @Test func metrics_areServedOnTheAdminListenerOnly() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let admin = try TestHTTP.get(port: server.adminPort, "/metrics")
        #expect(admin.status == 200)
        #expect(admin.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        for name in ["whisper_ws_connections", "whisper_errors_total", "whisper_routing_latency_seconds_bucket",
                     "process_cpu_seconds_total", "process_resident_memory_bytes"] {
            #expect(admin.text.contains(name), "missing \(name)")
        }
        // Collected from the storage links at each scrape (test_faults.py sees them move).
        for name in ["whisper_redis_reconnects_total", "whisper_postgres_reconnects_total"] {
            #expect(admin.text.contains("# TYPE \(name) counter\n\(name) 0\n"), "missing \(name) at 0")
        }
        let publicResponse = try TestHTTP.get(port: server.publicPort, "/metrics")
        #expect(publicResponse.status == 404)
        #expect((publicResponse.json?["error"] as? [String: Any])?["code"] as? String == "NOT_FOUND")
    }

    @Test func unknownMethod_gets405_withAllow() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let response = try TestHTTP.request(port: server.publicPort,
                                            "DELETE /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 405)
        #expect(response.headers["allow"]?.contains("GET") == true)
    }

    @Test func oversizedHeaders_get431_andMalformedRequests_get400() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let big = String(repeating: "a", count: 17_000)
        let tooBig = try TestHTTP.request(port: server.publicPort, "GET /health HTTP/1.1\r\nHost: t\r\nX-Big: \(big)\r\n\r\n")
        #expect(tooBig.status == 431)
        let malformed = try TestHTTP.request(port: server.publicPort, "GET /health HTTP/1.1\r\nHost: t\r\nBad Header: x\r\n\r\n")
        #expect(malformed.status == 400)
        #expect((malformed.json?["error"] as? [String: Any])?["code"] as? String == "INVALID_PAYLOAD")
    }

    @Test func bodyOverTheRouteCap_gets413_beforeTheBodyIsSent() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        // GET /health takes no body: a declared body is refused from the head alone.
        let response = try TestHTTP.request(port: server.publicPort,
                                            "GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
        #expect(response.status == 413)
    }

    @Test func bodyToAMethodOrPathNoRouteTakes_gets405Or404_not413() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let wrongMethod = try TestHTTP.request(port: server.publicPort,
                                               "POST /health HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"]?.contains("GET") == true)
        let wrongPath = try TestHTTP.request(port: server.publicPort,
                                             "POST /report HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}")
        #expect(wrongPath.status == 404)
        #expect((wrongPath.json?["error"] as? [String: Any])?["code"] as? String == "NOT_FOUND")
    }

    @Test func pipelinedRequests_areAnsweredInOrder_onOneConnection() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        #expect(await eventually(within: 10, every: 0.05) { (try? TestHTTP.get(port: server.publicPort, "/ready"))?.status == 200 })
        let socket = try TestSocket(port: server.publicPort)
        try socket.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\nGET /ready HTTP/1.1\r\nHost: t\r\n\r\nGET /nope HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let text = String(decoding: try socket.receiveUntilClosed(), as: UTF8.self)
        let statuses = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { "HTTP/1.1 " + ($0.components(separatedBy: "\r\n").first ?? "") }
        #expect(statuses == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found"])
        #expect(text.contains(#""checks""#))
    }

    @Test func slowRequest_gets408_andIsClosed() async throws {
        let server = try await TestServer(["WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS": "1"])
        defer { server.stop() }
        let socket = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
        try socket.send("GET /health HTTP/1.1\r\nHost: t\r\n")  // never finished
        let response = try TestHTTP.parse(socket.receiveUntilClosed())
        #expect(response.status == 408)
    }
}
