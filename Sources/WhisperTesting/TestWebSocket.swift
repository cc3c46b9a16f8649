import Foundation

/// A deliberately small RFC 6455 client for tests, written independently of the server's
/// codec so that the two check each other: masked client frames, unmasked server frames.
public final class TestWebSocket {
    public enum Frame: Equatable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        case close(code: UInt16?, reason: String)
    }

    public let socket: TestSocket
    public let responseHead: String
    /// RSV1 of the last frame received: set on permessage-deflate compressed messages.
    public private(set) var lastFrameCompressed = false

    /// Connects and completes the opening handshake at `path`.
    public convenience init(port: Int, path: String = "/ws", extraHeaders: [String] = [], tls: Bool = false) throws {
        try self.init(socket: TestSocket(port: port, tls: tls), path: path, extraHeaders: extraHeaders)
    }

    /// Completes the opening handshake on `socket`, sending `preamble` (e.g. a PROXY header) in
    /// the same write just before the request.
    public init(socket: TestSocket, preamble: [UInt8] = [], path: String = "/ws", extraHeaders: [String] = []) throws {
        self.socket = socket
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for header in extraHeaders { request += header + "\r\n" }
        request += "\r\n"
        try socket.send(preamble + Array(request.utf8))
        var headEnd = socket.buffered.firstRange(of: [13, 10, 13, 10])
        while headEnd == nil {
            try socket.receiveMore()
            headEnd = socket.buffered.firstRange(of: [13, 10, 13, 10])
        }
        let end = headEnd?.upperBound ?? 0
        responseHead = String(decoding: socket.buffered[..<end], as: UTF8.self)
        socket.buffered.removeFirst(end)
        guard responseHead.hasPrefix("HTTP/1.1 101") else { throw TestSocket.Failure.io("handshake refused: \(responseHead)") }
    }

    /// Sends one frame; `mask` false produces an (illegal) unmasked client frame.
    public func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true, mask: Bool = true, rsv: UInt8 = 0) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
        let maskBit: UInt8 = mask ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(maskBit | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF)) }
        }
        if mask {
            let key = (0..<4).map { _ in UInt8.random(in: 0...255) }
            frame += key
            frame += payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
        } else {
            frame += payload
        }
        try socket.send(frame)
    }

    public func sendText(_ text: String) throws { try sendFrame(opcode: 0x1, payload: Array(text.utf8)) }

    public func sendClose(code: UInt16, reason: String = "") throws {
        try sendFrame(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    /// Reads the next complete frame (server frames are never masked or fragmented here).
    public func receiveFrame() throws -> Frame {
        let header = try socket.receive(exactly: 2)
        let opcode = header[0] & 0x0F
        lastFrameCompressed = header[0] & 0x40 != 0
        var length = UInt64(header[1] & 0x7F)
        if length == 126 {
            let b = try socket.receive(exactly: 2)
            length = UInt64(b[0]) << 8 | UInt64(b[1])
        } else if length == 127 {
            length = try socket.receive(exactly: 8).reduce(0) { $0 << 8 | UInt64($1) }
        }
        let payload = try socket.receive(exactly: Int(length))
        switch opcode {
        case 0x1: return .text(String(decoding: payload, as: UTF8.self))
        case 0x2: return .binary(payload)
        case 0x9: return .ping(payload)
        case 0xA: return .pong(payload)
        case 0x8:
            let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
            return .close(code: code, reason: String(decoding: payload.dropFirst(2), as: UTF8.self))
        default: throw TestSocket.Failure.io("unexpected opcode \(opcode)")
        }
    }

    /// The next text frame, skipping pings.
    public func receiveText() throws -> String {
        while true {
            switch try receiveFrame() {
            case .text(let text): return text
            case .ping, .pong: continue
            case let other: throw TestSocket.Failure.io("expected text, got \(other)")
            }
        }
    }

    /// The next text frame parsed as a JSON object. With `WHISPER_TEST_FRAME_LOG` set (by
    /// scripts/test), every such frame is also appended to that file, one per line, so the
    /// interop stage can check each server frame of the Swift tests against `schemas/`.
    public func receiveJSON() throws -> [String: Any] {
        let text = try receiveText()
        FrameLog.append(text)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestSocket.Failure.io("not a JSON object: \(text)")
        }
        return object
    }

    /// Sends `frame` as JSON text and returns the reply.
    public func request(_ frame: [String: Any]) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: frame)
        try sendText(String(decoding: data, as: UTF8.self))
        return try receiveJSON()
    }

    /// Reads frames until a close frame; returns its code.
    public func receiveClose() throws -> UInt16? {
        while true {
            if case .close(let code, _) = try receiveFrame() { return code }
        }
    }
}

/// Appends server frames to `WHISPER_TEST_FRAME_LOG` (JSON lines), if set.
enum FrameLog {
    private static let path = ProcessInfo.processInfo.environment["WHISPER_TEST_FRAME_LOG"].flatMap { $0.isEmpty ? nil : $0 }
    private static let lock = NSLock()

    static func append(_ frame: String) {
        guard let path, !frame.contains("\n") else { return }
        lock.lock()
        defer { lock.unlock() }
        guard let file = fopen(path, "a") else { return }
        let line = Array((frame + "\n").utf8)
        _ = fwrite(line, 1, line.count, file)
        fclose(file)
    }
}
