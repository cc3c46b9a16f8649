/// A validated opening handshake (RFC 6455 §4.2.1), ready to be answered with 101.
public struct WebSocketHandshakeRequest: Equatable, Sendable {
    /// `Sec-WebSocket-Key` as sent (trimmed); decodes to 16 octets.
    public var key: String
    /// Every extension offer in `Sec-WebSocket-Extensions`, in the client's order.
    public var extensionOffers: [WebSocketExtensionOffer]

    public init(key: String, extensionOffers: [WebSocketExtensionOffer] = []) {
        self.key = key
        self.extensionOffers = extensionOffers
    }

    /// The 101 response (RFC 6455 §4.2.2 item 5): `Upgrade`, `Connection`, `Sec-WebSocket-Accept`
    /// and, when an offer was accepted, `Sec-WebSocket-Extensions`. Pass nil to never compress.
    public func accept(deflate policy: PerMessageDeflatePolicy? = PerMessageDeflatePolicy()) -> WebSocketHandshakeResponse {
        var headers: [(name: String, value: String)] = [
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Accept", WebSocketHandshake.acceptValue(forKey: key)),
        ]
        let agreement = policy.flatMap { PerMessageDeflate.negotiate(offers: extensionOffers, policy: $0) }
        if let agreement {
            headers.append(("Sec-WebSocket-Extensions", agreement.responseValue))
        }
        return WebSocketHandshakeResponse(headers: headers, deflate: agreement?.parameters)
    }
}

/// The answer to a valid upgrade request: status 101 with these headers, after which the
/// connection speaks WebSocket with `deflate` in force (nil: no compression).
public struct WebSocketHandshakeResponse: Sendable {
    public static let status = 101
    public var headers: [(name: String, value: String)]
    public var deflate: DeflateParameters?

    public init(headers: [(name: String, value: String)], deflate: DeflateParameters?) {
        self.headers = headers
        self.deflate = deflate
    }
}
