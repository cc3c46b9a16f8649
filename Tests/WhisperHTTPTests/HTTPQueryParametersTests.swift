import Testing
@testable import WhisperHTTP

@Suite struct HTTPQueryParametersTests {
    @Test func pairs_parseInOrder_andEmptyPiecesAreSkipped() throws {
        let params = try #require(HTTPQueryParameters(parsing: "a=1&&b&c=&a=2"))
        #expect(params.items.map(\.name) == ["a", "b", "c", "a"])
        #expect(params.values(for: "a") == ["1", "2"])
        #expect(params["b"] == "")
    }

    @Test func percentDecodes_namesAndValues_andKeepsPlus() throws {
        let params = try #require(HTTPQueryParameters(parsing: "n%C3%A4me=caf%C3%A9%20x+y%3D"))
        #expect(params["näme"] == "café x+y=")
    }

    @Test func invalidUTF8_orBadEscape_isNil() {
        #expect(HTTPQueryParameters(parsing: "a=%FF") == nil)
        #expect(HTTPQueryParameters(parsing: "a=%G0") == nil)
    }
}
