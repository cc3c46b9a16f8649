/// permessage-deflate negotiation (RFC 7692 §5, §7.1): pure parameter logic, no zlib.
public enum PerMessageDeflate {
    public static let extensionName = "permessage-deflate"

    /// An accepted offer: the parameters in force and the `Sec-WebSocket-Extensions` response value.
    public struct Agreement: Equatable, Sendable {
        public var parameters: DeflateParameters
        public var responseValue: String
    }

    /// Accepts the first acceptable permessage-deflate offer, in the client's order of preference
    /// (RFC 7692 §5.1); nil when none is acceptable, and the connection goes on uncompressed.
    public static func negotiate(offers: [WebSocketExtensionOffer], policy: PerMessageDeflatePolicy = PerMessageDeflatePolicy()) -> Agreement? {
        for offer in offers where offer.name.lowercased() == extensionName {
            if let agreement = accept(offer, policy: policy) { return agreement }
        }
        return nil
    }

    /// The client's `client_max_window_bits` parameter, which may come with or without a value.
    private enum ClientWindow {
        case absent
        case noValue
        case bits(Int)
    }

    /// Judges one offer. An offer with an unknown parameter, a repeated parameter, or an invalid
    /// value is declined (RFC 7692 §7.1: "the server MUST decline" such an offer).
    static func accept(_ offer: WebSocketExtensionOffer, policy: PerMessageDeflatePolicy) -> Agreement? {
        var serverNoContextTakeover = false
        var serverWindow: Int?
        var clientWindow = ClientWindow.absent
        var seen: Set<String> = []
        for parameter in offer.parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "server_no_context_takeover":
                guard parameter.value == nil else { return nil }  // §7.1.1.1: no value
                serverNoContextTakeover = true
            case "client_no_context_takeover":
                // §7.1.1.2: no value. In an offer it is only a hint that the client will reset;
                // we inflate correctly either way, so only the policy decides whether to ask.
                guard parameter.value == nil else { return nil }
            case "server_max_window_bits":
                // §7.1.2.1: a value is required.
                guard let value = parameter.value, let bits = windowBits(value) else { return nil }
                serverWindow = bits
            case "client_max_window_bits":
                // §7.1.2.2: the value is optional ("I support it, pick one").
                if let value = parameter.value {
                    guard let bits = windowBits(value) else { return nil }
                    clientWindow = .bits(bits)
                } else {
                    clientWindow = .noValue
                }
            default:
                return nil
            }
        }
        return agreement(
            serverNoContextTakeover: serverNoContextTakeover || policy.serverNoContextTakeover,
            clientNoContextTakeover: policy.clientNoContextTakeover,
            serverWindow: serverWindow, clientWindow: clientWindow, policy: policy)
    }

    /// Builds the parameters and response for an acceptable offer.
    private static func agreement(
        serverNoContextTakeover: Bool, clientNoContextTakeover: Bool,
        serverWindow: Int?, clientWindow: ClientWindow, policy: PerMessageDeflatePolicy
    ) -> Agreement {
        var response = extensionName
        if serverNoContextTakeover { response += "; server_no_context_takeover" }
        // §7.1.1.2: the server MAY ask the client to reset whether or not it offered to.
        if clientNoContextTakeover { response += "; client_no_context_takeover" }

        // §7.1.2.1: answer with a value ≤ the offered one; we MAY also limit ourselves unasked.
        let serverBits = min(serverWindow ?? 15, policy.serverMaxWindowBits)
        if serverWindow != nil || serverBits < 15 { response += "; server_max_window_bits=\(serverBits)" }

        // §7.1.2.2: only if offered; a value must not exceed the offered one.
        var clientBits = 15
        switch clientWindow {
        case .absent:
            break
        case .noValue:
            clientBits = policy.clientMaxWindowBits
            if clientBits < 15 { response += "; client_max_window_bits=\(clientBits)" }
        case .bits(let offered):
            clientBits = min(offered, policy.clientMaxWindowBits)
            if clientBits < offered { response += "; client_max_window_bits=\(clientBits)" }
        }

        let parameters = DeflateParameters(
            serverNoContextTakeover: serverNoContextTakeover,
            clientNoContextTakeover: clientNoContextTakeover,
            serverMaxWindowBits: serverBits,
            clientMaxWindowBits: clientBits,
            compressionLevel: policy.compressionLevel,
            memoryLevel: policy.memoryLevel)
        return Agreement(parameters: parameters, responseValue: response)
    }

    /// A window-bits value: decimal 8–15 without leading zeros (RFC 7692 §7.1.2.1, §7.1.2.2).
    static func windowBits(_ value: String) -> Int? {
        switch value {
        case "8": 8
        case "9": 9
        case "10": 10
        case "11": 11
        case "12": 12
        case "13": 13
        case "14": 14
        case "15": 15
        default: nil
        }
    }
}
