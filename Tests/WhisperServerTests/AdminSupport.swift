import Foundation
import Testing
import WhisperTesting

/// Shared helpers of the admin API tests: a server with an admin token, and calls on its
/// admin listener.
enum Admin {
    static let token = "admin-test-token-7c1d2e"

    /// A server (or the environment of a cluster) with `WHISPER_ADMIN_TOKEN` set.
    static func environment(_ overrides: [String: String] = [:]) -> [String: String] {
        ["WHISPER_ADMIN_TOKEN": token].merging(overrides) { $1 }
    }

    static func server(_ overrides: [String: String] = [:]) async throws -> TestServer {
        try await TestServer(environment(overrides))
    }

    /// One request with `Authorization: Bearer <token>` (none when `token` is nil).
    static func call(_ port: Int, _ method: String, _ path: String, body: String? = nil,
                     token: String? = Admin.token) throws -> TestHTTPResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        return try TestHTTP.request(port: port, head + "\r\n" + (body ?? ""))
    }

    static func call(_ server: TestServer, _ method: String, _ path: String, body: String? = nil) throws -> TestHTTPResponse {
        try call(server.adminPort, method, path, body: body)
    }

    static func code(_ reply: TestHTTPResponse) -> String? { (reply.json?["error"] as? [String: Any])?["code"] as? String }

    static func items(_ reply: TestHTTPResponse) -> [[String: Any]] { reply.json?["items"] as? [[String: Any]] ?? [] }

    /// Files a report from `reporter` about `reported` on the public listener; its id.
    static func fileReport(_ server: TestServer, by reporter: Phone, about reported: String, reason: String = "spam") throws -> String {
        let body = #"{"whisperId":"\#(reported)","reason":"\#(reason)","details":"test"}"#
        let reply = try TestHTTP.request(port: server.publicPort, "POST /reports HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
            + "Authorization: Bearer \(reporter.token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(reply.status == 201, "\(reply.text)")
        return try #require(reply.json?["id"] as? String)
    }

    /// Follows `nextCursor` from the first page of `path` (which has no query yet, or ends
    /// in one) and answers every item and the page sizes; bounded.
    static func allPages(_ server: TestServer, _ path: String, limit: Int) throws -> (items: [[String: Any]], pages: [Int]) {
        var items: [[String: Any]] = [], pages: [Int] = []
        var cursor: String?
        let separator = path.contains("?") ? "&" : "?"
        for _ in 0..<10_000 {
            let page = try call(server, "GET", path + separator + "limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? ""))
            #expect(page.status == 200, "\(page.text)")
            items += Admin.items(page)
            pages.append(Admin.items(page).count)
            guard let next = page.json?["nextCursor"] as? String else { return (items, pages) }
            cursor = next
        }
        Issue.record("paging did not end")
        return (items, pages)
    }
}
