import WhisperWebSocket

/// libFuzzer target `websocket`: client bytes into a server-side `WebSocketConnection`
/// (frame decoder, message assembler, permessage-deflate inflate), the way the gateway drives it.
///
/// Input layout: byte 0 picks the configuration (deflate or not, context takeover, a small or the
/// default message cap), byte 1 the chunk size the rest is fed in (1–64, exercising every
/// partial-frame state), the rest is the wire. Invariants: no crash or hang; every delivered
/// message is valid UTF-8 and within the cap; nothing follows `.close`; and a valid UTF-8 text
/// encoded the way a client would send it (masked, compressed if negotiated) comes out unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func webSocketFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard input.count >= 2 else { return 0 }
    let mode = input[0]
    let chunk = Int(input[1] % 64) + 1
    let wire = input[2...]
    let configuration = WebSocketFuzzSupport.configuration(mode)

    var connection = WebSocketConnection(configuration: configuration, now: 0)
    var closed = false
    var start = wire.startIndex
    while start < wire.endIndex {
        let end = min(start + chunk, wire.endIndex)
        for action in connection.receive(wire[start..<end], now: 1) {
            precondition(!closed, "an action followed close")
            switch action {
            case .deliverText(let text):
                precondition(text.count <= configuration.maxMessageBytes, "text over the message cap")
                precondition(String(validating: text, as: UTF8.self) != nil, "delivered invalid UTF-8")
            case .deliverBinary:
                preconditionFailure("binary delivered although the relay refuses it")
            case .send(let bytes):
                precondition(bytes.count <= 256, "a control reply larger than any control frame")
            case .close:
                closed = true
            }
        }
        start = end
    }
    WebSocketFuzzSupport.roundTrip(wire, configuration: configuration)
    return 0
}

enum WebSocketFuzzSupport {
    static func configuration(_ mode: UInt8) -> WebSocketConfiguration {
        var deflate: DeflateParameters?
        if mode & 1 != 0 {
            deflate = DeflateParameters(serverNoContextTakeover: mode & 2 != 0, clientNoContextTakeover: mode & 2 != 0)
        }
        return WebSocketConfiguration(maxMessageBytes: mode & 4 != 0 ? 4096 : 512_000, deflate: deflate)
    }

    /// decode(encode(x)) == x for a text message x, split at a fuzzed point into two messages so
    /// the inflate context carries over between them when takeover is on.
    static func roundTrip(_ text: ArraySlice<UInt8>, configuration: WebSocketConfiguration) {
        guard text.count <= configuration.maxMessageBytes, String(validating: text, as: UTF8.self) != nil else { return }
        var encoder = WebSocketFrameEncoder(deflate: configuration.deflate)
        var connection = WebSocketConnection(configuration: configuration, now: 0)
        let messages = [Array(text), Array(text.reversed())].filter { String(validating: $0, as: UTF8.self) != nil }
        for message in messages {
            let frame = masked(encoder.textMessage(message))
            let actions = connection.receive(frame, now: 1)
            precondition(actions == [.deliverText(message)], "round trip changed the message: \(actions.count) actions")
        }
    }

    /// A server (unmasked) frame turned into the client form: mask bit set, a key, payload XORed.
    static func masked(_ frame: [UInt8]) -> [UInt8] {
        let lengthCode = frame[1] & 0x7F
        let headerBytes = lengthCode == 127 ? 10 : (lengthCode == 126 ? 4 : 2)
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        var out = Array(frame[0..<headerBytes])
        out[1] |= 0x80
        out.append(contentsOf: key)
        for (i, byte) in frame[headerBytes...].enumerated() { out.append(byte ^ key[i & 3]) }
        return out
    }
}
