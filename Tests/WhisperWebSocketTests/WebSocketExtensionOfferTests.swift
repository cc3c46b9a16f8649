import Testing
@testable import WhisperWebSocket

@Suite struct WebSocketExtensionOfferTests {
    typealias Offer = WebSocketExtensionOffer
    typealias Parameter = WebSocketExtensionOffer.Parameter

    @Test func severalOffers_parse_withParameters() {
        let offers = Offer.parse(headerValues: ["permessage-deflate; client_max_window_bits, foo ; a=1 ;b=\"x\""])
        #expect(offers == [
            Offer(name: "permessage-deflate", parameters: [Parameter(name: "client_max_window_bits")]),
            Offer(name: "foo", parameters: [Parameter(name: "a", value: "1"), Parameter(name: "b", value: "x")]),
        ])
    }

    @Test func severalHeaderLines_areJoinedInOrder() {
        let offers = Offer.parse(headerValues: ["a", "b, c"])
        #expect(offers.map(\.name) == ["a", "b", "c"])
    }

    @Test func quotedValues_areUnescaped_andSeparatorsInsideQuotesDoNotSplit() {
        #expect(Offer.parse(headerValues: ["e; p=\"1\\5\""]) == [Offer(name: "e", parameters: [Parameter(name: "p", value: "15")])])
        // A quoted value holding ',' is not a token after unescaping: that offer is skipped, the next one survives.
        #expect(Offer.parse(headerValues: ["e; p=\"a,b\", f"]).map(\.name) == ["f"])
    }

    @Test func emptyAndMalformedElements_areSkipped() {
        #expect(Offer.parse(headerValues: [" , ,permessage-deflate,, "]).map(\.name) == ["permessage-deflate"])
        #expect(Offer.parse(headerValues: ["e; =1, f"]).map(\.name) == ["f"])
        #expect(Offer.parse(headerValues: ["e;, f"]).map(\.name) == ["f"])
        #expect(Offer.parse(headerValues: ["e; p=\"unterminated, f"]).isEmpty)
        #expect(Offer.parse(headerValues: ["bad name; x"]).isEmpty)
    }

    @Test func whitespaceAroundEquals_isAllowed() {
        #expect(Offer.parse(headerValues: ["e; p = 10"]) == [Offer(name: "e", parameters: [Parameter(name: "p", value: "10")])])
    }
}
