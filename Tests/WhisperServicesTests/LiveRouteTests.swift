import Testing
import WhisperServices

@Suite("LiveRoute text form (no server)")
struct LiveRouteTests {
    @Test func text_roundTrips() {
        let route = LiveRoute(node: "9f3a0c1d2e4b5a69", loop: 1, connection: 123_456_789)
        #expect(route.text == "9f3a0c1d2e4b5a69:1:123456789")
        #expect(LiveRoute(text: route.text) == route)
    }

    @Test(arguments: ["", "n", "n:1", ":1:2", "n::2", "n:1:", "n:-1:2", "n:1:-2", "a:b:1:2", "n:x:2", "n:1:2 ", "n:1:18446744073709551616"])
    func malformed_isNil(_ text: String) {
        #expect(LiveRoute(text: text) == nil)
    }
}
