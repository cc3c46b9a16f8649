import WhisperHTTP
import WhisperWebSocket

/// The RFC 6455 §4.2 opening handshake on top of a parsed HTTP request.
enum WebSocketUpgrade {
    enum Outcome {
        case accepted(response: [UInt8], connection: WebSocketConnection)
        case refused(HTTPResponse)
    }

    /// On success: the `101 Switching Protocols` bytes and the connection state machine
    /// with the negotiated permessage-deflate parameters.
    static func accept(_ request: HTTPRequest, configuration: WebSocketConfiguration,
                       now: UInt64) -> Outcome {
        let headers = request.headers.fields.map { (name: $0.name, value: $0.value) }
        switch WebSocketHandshake.validate(method: request.method, headers: headers) {
        case .failure(let error):
            var extra = HTTPHeaders()
            for (name, value) in error.responseHeaders { extra.add(name: name, value: value) }
            return .refused(.error(status: HTTPStatus(code: error.httpStatus), code: "INVALID_PAYLOAD",
                                   message: "invalid WebSocket handshake", extraHeaders: extra))
        case .success(let handshake):
            let negotiated = handshake.accept()
            var response = HTTPResponse(status: .switchingProtocols)
            for (name, value) in negotiated.headers { response.headers.add(name: name, value: value) }
            var config = configuration
            config.deflate = negotiated.deflate
            let bytes = response.serialized(closeConnection: false, requestVersion: request.version)
            return .accepted(response: bytes, connection: WebSocketConnection(configuration: config, now: now))
        }
    }
}
