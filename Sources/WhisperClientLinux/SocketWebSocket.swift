import WhisperClient
import WhisperWebSocket

/// A WebSocket over a `BlockingSocket`, driven by the project's I/O-free client codec
/// (`ClientHandshake`, `ClientFrameEncoder`, `ClientFrameDecoder` in WhisperWebSocket — the
/// ones the load generator uses). Pings are answered here; a Close is echoed.
final class SocketWebSocket: ClientConnection {
    /// Largest server message accepted (the server's own frame limit, docs/protocol.md "Limits").
    static let maxMessageBytes = 512_000
    private let socket: BlockingSocket
    private var encoder = ClientFrameEncoder(deflate: nil)
    private var decoder = ClientFrameDecoder(maxMessageBytes: maxMessageBytes, deflate: nil)
    private var events: [ServerFrameEvent] = []
    private var open = true

    init(url: ServerURL, path: String, caFile: String?, timeoutSeconds: Int) throws(TransportError) {
        socket = try BlockingSocket(host: url.host, port: url.port, tls: url.tls, caFile: caFile, timeoutSeconds: timeoutSeconds)
        let handshake = ClientHandshake(host: url.hostHeader, path: path, offerDeflate: false,
                                        keyBytes: (0..<16).map { _ in UInt8.random(in: 0...255) })
        try socket.write(handshake.request)
        var head: [UInt8] = []
        var end = ClientHandshake.headEnd(in: head)
        while end == nil {
            guard head.count <= ClientHandshake.maxHeadBytes else { throw TransportError("handshake: response too large") }
            guard try socket.read(into: &head, timeoutMillis: timeoutSeconds * 1000) > 0 else {
                throw TransportError("handshake: timed out")
            }
            end = ClientHandshake.headEnd(in: head)
        }
        guard let end else { throw TransportError("handshake: no response") }
        switch handshake.validate(head: head[..<end]) {
        case .failure(let error): throw TransportError("handshake: \(error)")
        case .success: break
        }
        if end < head.count { try feed(Array(head[end...])) }
    }

    func send(_ text: [UInt8]) throws(TransportError) {
        guard open else { throw TransportError("send: connection closed") }
        try socket.write(encoder.text(text))
    }

    func receive(timeoutMillis: Int) throws(TransportError) -> TransportEvent {
        while true {
            while !events.isEmpty {
                switch events.removeFirst() {
                case .text(let bytes): return .text(bytes)
                case .ping(let payload): try socket.write(encoder.pong(payload))
                case .pong: break
                case .close(let code, let reason):
                    // RFC 6455 §5.5.1: echo the Close, then the server closes TCP.
                    try? socket.write(encoder.close(code: code ?? 1000))
                    shut()
                    return .closed(code: code, reason: reason)
                }
            }
            guard open else { return .closed(code: nil, reason: []) }
            var bytes: [UInt8] = []
            do {
                guard try socket.read(into: &bytes, timeoutMillis: timeoutMillis) > 0 else { return .timeout }
            } catch {
                shut()
                return .closed(code: nil, reason: [])
            }
            try feed(bytes)
        }
    }

    func close() {
        guard open else { return }
        try? socket.write(encoder.close(code: 1000))
        shut()
    }

    private func shut() {
        open = false
        socket.close()
    }

    private func feed(_ bytes: [UInt8]) throws(TransportError) {
        var decoded: [ServerFrameEvent] = []
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(ClientFrameError) in try decoder.feed(raw) { decoded.append($0) } }
        }
        events.append(contentsOf: decoded)
        if case .failure(let error) = result {
            try? socket.write(encoder.close(code: 1002))
            shut()
            throw TransportError("bad server frame: \(error)")
        }
    }
}
