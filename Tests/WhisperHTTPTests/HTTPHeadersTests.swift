import Testing
@testable import WhisperHTTP

@Suite struct HTTPHeadersTests {
    @Test func lookup_isCaseInsensitive_andKeepsOrder() {
        let headers: HTTPHeaders = ["Accept": "a", "X-Multi": "1", "x-multi": "2"]
        #expect(headers["ACCEPT"] == "a")
        #expect(headers["x-MULTI"] == "1")
        #expect(headers.values(for: "X-Multi") == ["1", "2"])
        #expect(headers["missing"] == nil)
    }

    @Test func tokens_splitListsAcrossLines_andTrim() {
        let headers: HTTPHeaders = ["Connection": " keep-alive ,, Upgrade", "connection": "TE"]
        #expect(headers.tokens(for: "connection") == ["keep-alive", "Upgrade", "TE"])
        #expect(headers.containsToken("upgrade", for: "Connection"))
        #expect(!headers.containsToken("close", for: "Connection"))
    }

    @Test func replaceOrAdd_collapsesDuplicatesAtFirstPosition() {
        var headers: HTTPHeaders = ["A": "1", "B": "x", "a": "2"]
        headers.replaceOrAdd(name: "a", value: "3")
        #expect(headers.fields == [.init(name: "A", value: "3"), .init(name: "B", value: "x")])
        headers.remove(name: "b")
        #expect(headers.count == 1)
    }
}
