import Testing
@testable import WhisperBench

struct AdminClientTests {
    @Test func endpoint_parsesHttpHostPort() {
        #expect(AdminEndpoint(url: "http://127.0.0.1:9090") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(url: "http://localhost:9090/metrics") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(url: "http://[::1]:9090") == AdminEndpoint(host: "::1", port: 9090))
        #expect(AdminEndpoint(url: "https://127.0.0.1:9090") == nil)
        #expect(AdminEndpoint(url: "http://127.0.0.1") == nil)
        #expect(AdminEndpoint(url: "http://127.0.0.1:70000") == nil)
    }

    @Test func body_honoursStatusAndContentLength() throws {
        let ok = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
        #expect(try AdminClient.body(of: ok) == "hello")
        let closeDelimited = Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it".utf8)
        #expect(try AdminClient.body(of: closeDelimited) == "all of it")
        #expect(throws: AdminClient.Failure.status(503)) {
            try AdminClient.body(of: Array("HTTP/1.1 503 x\r\nContent-Length: 0\r\n\r\n".utf8))
        }
        #expect(throws: AdminClient.Failure.malformed) { try AdminClient.body(of: Array("HTTP/1.1 200".utf8)) }
    }
}
