import Testing
@testable import WhisperAdmin

struct AdminClientTests {
    @Test func endpoint_parsesHttpAndHttpsUrls_withNamesAddressesAndDefaultPorts() {
        #expect(AdminEndpoint(url: "http://127.0.0.1:9090") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(url: "http://localhost:9090/metrics") == AdminEndpoint(host: "localhost", port: 9090))
        #expect(AdminEndpoint(url: "http://[::1]:9090") == AdminEndpoint(host: "::1", port: 9090))
        #expect(AdminEndpoint(url: "https://admin.example:9443") == AdminEndpoint(host: "admin.example", port: 9443, scheme: .https))
        #expect(AdminEndpoint(url: "https://admin.example") == AdminEndpoint(host: "admin.example", port: 443, scheme: .https))
        #expect(AdminEndpoint(url: "http://127.0.0.1") == AdminEndpoint(host: "127.0.0.1", port: 80))
        for bad in ["ftp://x:1", "127.0.0.1:9090", "http://", "http://127.0.0.1:70000", "http://h:0", "http://user@h:1",
                    "http://h:1?x=1", "http://h:x", "https://[::1", "http://a b:1"] {
            #expect(AdminEndpoint(url: bad) == nil, "\(bad)")
        }
    }

    @Test func endpoint_parsesTheAdminAddressSetting_asPlainHttp() {
        #expect(AdminEndpoint(address: "127.0.0.1:9090") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(address: "0.0.0.0:9090") == AdminEndpoint(host: "127.0.0.1", port: 9090))
        #expect(AdminEndpoint(address: "[::]:9090") == AdminEndpoint(host: "::1", port: 9090))
        #expect(AdminEndpoint(address: "admin.internal:9090") == AdminEndpoint(host: "admin.internal", port: 9090))
        #expect(AdminEndpoint(address: "127.0.0.1:0") == nil)
        #expect(AdminEndpoint(address: "127.0.0.1") == nil)
    }

    @Test func endpoint_buildsTheRequestUrl() {
        #expect(AdminEndpoint(host: "::1", port: 9090).url("/metrics") == "http://[::1]:9090/metrics")
        #expect(AdminEndpoint(host: "admin.example", port: 9443, scheme: .https).url("/admin/stats")
                == "https://admin.example:9443/admin/stats")
    }

    @Test func send_toAClosedPort_isUnreachable_namingTheEndpointButNotTheToken() throws {
        let client = AdminClient(endpoint: AdminEndpoint(host: "127.0.0.1", port: 1), timeoutSeconds: 2)
        let error = #expect(throws: AdminClient.Failure.self) { try client.send("GET", "/admin/stats", bearer: "secret-token-9") }
        guard case .unreachable(let why)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(why.contains("127.0.0.1:1") && !why.contains("secret-token-9"), "\(why)")
    }

    @Test func exit_mapsArgumentParsersUsageStatusTo2_andKeepsTheOthers() {
        #expect(AdminExit.usageExitStatus(64) == 2)
        for kept: Int32 in [0, 1, 2, 69] { #expect(AdminExit.usageExitStatus(kept) == kept) }
    }
}
