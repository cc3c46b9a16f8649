import Testing
@testable import WhisperWebSocket

@Suite struct PerMessageDeflateTests {
    func negotiate(_ header: String, policy: PerMessageDeflatePolicy = PerMessageDeflatePolicy()) -> PerMessageDeflate.Agreement? {
        PerMessageDeflate.negotiate(offers: WebSocketExtensionOffer.parse(headerValues: [header]), policy: policy)
    }

    @Test func plainOffer_isAccepted_withDefaults() {
        let agreement = negotiate("permessage-deflate")
        #expect(agreement?.responseValue == "permessage-deflate")
        #expect(agreement?.parameters == DeflateParameters())
    }

    @Test func serverNoContextTakeover_isHonoured() {
        let agreement = negotiate("permessage-deflate; server_no_context_takeover")
        #expect(agreement?.responseValue == "permessage-deflate; server_no_context_takeover")
        #expect(agreement?.parameters.serverNoContextTakeover == true)
    }

    @Test func clientNoContextTakeover_isAHint_whenInTheOffer() {
        let agreement = negotiate("permessage-deflate; client_no_context_takeover")
        #expect(agreement?.responseValue == "permessage-deflate")
        #expect(agreement?.parameters.clientNoContextTakeover == false)
    }

    @Test func clientNoContextTakeover_isAskedFor_whenThePolicyWantsIt() {
        let agreement = negotiate("permessage-deflate", policy: PerMessageDeflatePolicy(clientNoContextTakeover: true))
        #expect(agreement?.responseValue == "permessage-deflate; client_no_context_takeover")
        #expect(agreement?.parameters.clientNoContextTakeover == true)
    }

    @Test func serverMaxWindowBits_isAnswered_withTheOfferedValue() {
        let agreement = negotiate("permessage-deflate; server_max_window_bits=10")
        #expect(agreement?.responseValue == "permessage-deflate; server_max_window_bits=10")
        #expect(agreement?.parameters.serverMaxWindowBits == 10)
    }

    @Test func serverMaxWindowBits8_isAccepted_andDeflatesWith9() {
        let agreement = negotiate("permessage-deflate; client_max_window_bits; server_max_window_bits=8")
        #expect(agreement?.responseValue == "permessage-deflate; server_max_window_bits=8")
        #expect(agreement?.parameters.serverMaxWindowBits == 8)
        #expect(agreement?.parameters.compressorWindowBits == -9)
    }

    @Test func ownWindow_isLimitedByPolicy_evenWhenNotAsked() {
        let agreement = negotiate("permessage-deflate", policy: PerMessageDeflatePolicy(serverMaxWindowBits: 11))
        #expect(agreement?.responseValue == "permessage-deflate; server_max_window_bits=11")
        #expect(negotiate("permessage-deflate; server_max_window_bits=13", policy: PerMessageDeflatePolicy(serverMaxWindowBits: 11))?.parameters.serverMaxWindowBits == 11)
        #expect(negotiate("permessage-deflate; server_max_window_bits=9", policy: PerMessageDeflatePolicy(serverMaxWindowBits: 11))?.parameters.serverMaxWindowBits == 9)
    }

    @Test func clientMaxWindowBits_isHandled_withAndWithoutAValue() {
        #expect(negotiate("permessage-deflate; client_max_window_bits")?.responseValue == "permessage-deflate")
        #expect(negotiate("permessage-deflate; client_max_window_bits=10")?.parameters.clientMaxWindowBits == 10)
        let limited = PerMessageDeflatePolicy(clientMaxWindowBits: 12)
        #expect(negotiate("permessage-deflate; client_max_window_bits", policy: limited)?.responseValue == "permessage-deflate; client_max_window_bits=12")
        #expect(negotiate("permessage-deflate; client_max_window_bits=14", policy: limited)?.responseValue == "permessage-deflate; client_max_window_bits=12")
        #expect(negotiate("permessage-deflate; client_max_window_bits=10", policy: limited)?.responseValue == "permessage-deflate")
        // Not offered: the server must not send it (RFC 7692 §7.1.2.2).
        #expect(negotiate("permessage-deflate", policy: limited)?.responseValue == "permessage-deflate")
    }

    @Test func quotedParameterValues_areAccepted() {
        #expect(negotiate("permessage-deflate; server_max_window_bits=\"10\"")?.parameters.serverMaxWindowBits == 10)
    }

    @Test(arguments: [
        "permessage-deflate; unknown_param",
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits=010",
        "permessage-deflate; server_max_window_bits=abc",
        "permessage-deflate; client_max_window_bits=0",
        "permessage-deflate; server_no_context_takeover=1",
        "permessage-deflate; client_no_context_takeover=\"x\"",
        "x-webkit-deflate-frame",
    ])
    func invalidOffer_isDeclined(header: String) {
        #expect(negotiate(header) == nil)
    }

    @Test func negotiation_fallsBackToTheNextAcceptableOffer() {
        let agreement = negotiate("permessage-deflate; foo=1, permessage-deflate; server_max_window_bits=12, permessage-deflate")
        #expect(agreement?.parameters.serverMaxWindowBits == 12)
    }

    @Test func negotiation_takesTheFirstAcceptableOffer_inTheClientsOrder() {
        // Autobahn 13.7: three offers, the first of which asks for window 8 with no context takeover.
        let agreement = negotiate("permessage-deflate; client_no_context_takeover; client_max_window_bits; server_no_context_takeover; server_max_window_bits=8, permessage-deflate; server_no_context_takeover, permessage-deflate")
        #expect(agreement?.responseValue == "permessage-deflate; server_no_context_takeover; server_max_window_bits=8")
    }

    @Test func offers_areRead_whenSpreadOverSeveralHeaders() {
        let offers = WebSocketExtensionOffer.parse(headerValues: ["x-foo", "permessage-deflate; server_max_window_bits=9"])
        #expect(PerMessageDeflate.negotiate(offers: offers)?.parameters.serverMaxWindowBits == 9)
    }
}
