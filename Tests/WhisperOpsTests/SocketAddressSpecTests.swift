import Testing
import WhisperOps

@Suite struct SocketAddressSpecTests {
    @Test(arguments: [
        ("0.0.0.0:8080", "0.0.0.0", 8080),
        ("127.0.0.1:0", "127.0.0.1", 0),
        ("localhost:65535", "localhost", 65535),
        ("[::1]:9090", "::1", 9090),
        ("[::]:443", "::", 443),
        ("[fe80::1%eth0]:80", "fe80::1%eth0", 80),
        ("[::ffff:10.0.0.1]:8080", "::ffff:10.0.0.1", 8080),
    ] as [(String, String, Int)])
    func parse_acceptsHostPortAndBracketedIPv6(text: String, host: String, port: Int) {
        let parsed = SocketAddressSpec.parse(text)
        #expect(parsed?.host == host)
        #expect(parsed.map { Int($0.port) } == port)
    }

    @Test(arguments: ["8080", ":8080", "host:", "host:65536", "host:-1", "host:80x", "::1:8080", "[::1]",
                      "[::1:8080", "[]:80", "[abc]:80", "ho st:80", "host:+80", "host:123456", ""])
    func parse_rejectsMalformedAddresses(_ text: String) {
        #expect(SocketAddressSpec.parse(text) == nil)
    }

    @Test func description_roundTripsThroughParse() {
        for text in ["0.0.0.0:8080", "[::1]:9090"] {
            #expect(SocketAddressSpec.parse(text)?.description == text)
        }
        #expect(SocketAddressSpec.parse("[::1]:1")?.isIPv6 == true)
        #expect(SocketAddressSpec.parse("1.2.3.4:1")?.isIPv6 == false)
    }
}
