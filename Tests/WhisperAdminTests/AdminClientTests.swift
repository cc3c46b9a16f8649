import Testing
@testable import WhisperAdmin

struct AdminClientTests {
    @Test func endpoint_parsesHttpHostPort() {
        #expect(AdminEndpoint(url: "http://127.0.0.1:9090") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(url: "http://localhost:9090/metrics") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(url: "http://[::1]:9090") == AdminEndpoint(host: "::1", port: 9090))
        #expect(AdminEndpoint(url: "https://127.0.0.1:9090") == nil)
        #expect(AdminEndpoint(url: "http://127.0.0.1") == nil)
        #expect(AdminEndpoint(url: "http://127.0.0.1:70000") == nil)
    }

    @Test func endpoint_parsesTheAdminAddressSetting() {
        #expect(AdminEndpoint(address: "127.0.0.1:9090") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(address: "0.0.0.0:9090") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(address: "[::]:9090") == AdminEndpoint(host: "::1", port: 9090))
        #expect(AdminEndpoint(address: "127.0.0.1:0") == nil)
        #expect(AdminEndpoint(address: "127.0.0.1") == nil)
    }

    @Test func parse_keepsStatusAndHonoursContentLength() throws {
        let ok = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
        #expect(try AdminClient.parse(ok) == AdminClient.Response(status: 200, body: Array("hello".utf8)))
        let closeDelimited = Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it".utf8)
        #expect(try AdminClient.parse(closeDelimited).text == "all of it")
        let refused = try AdminClient.parse(Array("HTTP/1.1 503 x\r\nContent-Length: 2\r\n\r\n{}".utf8))
        #expect(refused.status == 503 && refused.text == "{}")
        #expect(throws: AdminClient.Failure.malformed) { try AdminClient.parse(Array("HTTP/1.1 200".utf8)) }
        #expect(throws: AdminClient.Failure.malformed) {
            try AdminClient.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort".utf8))
        }
    }
}
