import Testing
@testable import WhisperWebSocket

@Suite struct PerMessageDeflateTests {
    func negotiate(_ header: String, policy: PerMessageDeflatePolicy = PerMessageDeflatePolicy()) -> PerMessageDeflate.Agreement? {
        PerMessageDeflate.negotiate(offers: WebSocketExtensionOffer.parse(headerValues: [header]), policy: policy)
    }

    @Test func accepts_a_plain_offer_with_defaults() {
        let agreement = negotiate("permessage-deflate")
        #expect(agreement?.responseValue == "permessage-deflate")
        #expect(agreement?.parameters == DeflateParameters())
    }

    @Test func honours_server_no_context_takeover() {
        let agreement = negotiate("permessage-deflate; server_no_context_takeover")
        #expect(agreement?.responseValue == "permessage-deflate; server_no_context_takeover")
        #expect(agreement?.parameters.serverNoContextTakeover == true)
    }

    @Test func treats_client_no_context_takeover_in_the_offer_as_a_hint() {
        let agreement = negotiate("permessage-deflate; client_no_context_takeover")
        #expect(agreement?.responseValue == "permessage-deflate")
        #expect(agreement?.parameters.clientNoContextTakeover == false)
    }

    @Test func asks_for_client_no_context_takeover_when_the_policy_wants_it() {
        let agreement = negotiate("permessage-deflate", policy: PerMessageDeflatePolicy(clientNoContextTakeover: true))
        #expect(agreement?.responseValue == "permessage-deflate; client_no_context_takeover")
        #expect(agreement?.parameters.clientNoContextTakeover == true)
    }

    @Test func answers_server_max_window_bits_with_the_offered_value() {
        let agreement = negotiate("permessage-deflate; server_max_window_bits=10")
        #expect(agreement?.responseValue == "permessage-deflate; server_max_window_bits=10")
        #expect(agreement?.parameters.serverMaxWindowBits == 10)
    }

    @Test func accepts_server_max_window_bits_8_and_deflates_with_9() {
        let agreement = negotiate("permessage-deflate; client_max_window_bits; server_max_window_bits=8")
        #expect(agreement?.responseValue == "permessage-deflate; server_max_window_bits=8")
        #expect(agreement?.parameters.serverMaxWindowBits == 8)
        #expect(agreement?.parameters.compressorWindowBits == -9)
    }

    @Test func limits_our_own_window_by_policy_even_when_not_asked() {
        let agreement = negotiate("permessage-deflate", policy: PerMessageDeflatePolicy(serverMaxWindowBits: 11))
        #expect(agreement?.responseValue == "permessage-deflate; server_max_window_bits=11")
        #expect(negotiate("permessage-deflate; server_max_window_bits=13", policy: PerMessageDeflatePolicy(serverMaxWindowBits: 11))?.parameters.serverMaxWindowBits == 11)
        #expect(negotiate("permessage-deflate; server_max_window_bits=9", policy: PerMessageDeflatePolicy(serverMaxWindowBits: 11))?.parameters.serverMaxWindowBits == 9)
    }

    @Test func handles_client_max_window_bits_with_and_without_a_value() {
        #expect(negotiate("permessage-deflate; client_max_window_bits")?.responseValue == "permessage-deflate")
        #expect(negotiate("permessage-deflate; client_max_window_bits=10")?.parameters.clientMaxWindowBits == 10)
        let limited = PerMessageDeflatePolicy(clientMaxWindowBits: 12)
        #expect(negotiate("permessage-deflate; client_max_window_bits", policy: limited)?.responseValue == "permessage-deflate; client_max_window_bits=12")
        #expect(negotiate("permessage-deflate; client_max_window_bits=14", policy: limited)?.responseValue == "permessage-deflate; client_max_window_bits=12")
        #expect(negotiate("permessage-deflate; client_max_window_bits=10", policy: limited)?.responseValue == "permessage-deflate")
        // Not offered: the server must not send it (RFC 7692 §7.1.2.2).
        #expect(negotiate("permessage-deflate", policy: limited)?.responseValue == "permessage-deflate")
    }

    @Test func accepts_quoted_parameter_values() {
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
    func declines_an_invalid_offer(header: String) {
        #expect(negotiate(header) == nil)
    }

    @Test func falls_back_to_the_next_acceptable_offer() {
        let agreement = negotiate("permessage-deflate; foo=1, permessage-deflate; server_max_window_bits=12, permessage-deflate")
        #expect(agreement?.parameters.serverMaxWindowBits == 12)
    }

    @Test func takes_the_first_acceptable_offer_in_the_clients_order() {
        // Autobahn 13.7: three offers, the first of which asks for window 8 with no context takeover.
        let agreement = negotiate("permessage-deflate; client_no_context_takeover; client_max_window_bits; server_no_context_takeover; server_max_window_bits=8, permessage-deflate; server_no_context_takeover, permessage-deflate")
        #expect(agreement?.responseValue == "permessage-deflate; server_no_context_takeover; server_max_window_bits=8")
    }

    @Test func reads_offers_spread_over_several_headers() {
        let offers = WebSocketExtensionOffer.parse(headerValues: ["x-foo", "permessage-deflate; server_max_window_bits=9"])
        #expect(PerMessageDeflate.negotiate(offers: offers)?.parameters.serverMaxWindowBits == 9)
    }
}
