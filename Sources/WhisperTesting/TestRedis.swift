import Foundation

/// A minimal RESP2 client over a plain socket, for tests that inspect what the server
/// stored in Redis (independent of the server's hiredis client).
public final class TestRedis {
    public indirect enum Value: Equatable {
        case status(String)
        case error(String)
        case integer(Int64)
        case bulk([UInt8]?)
        case array([Value])

        public var text: String? {
            switch self {
            case .bulk(let bytes?): return String(decoding: bytes, as: UTF8.self)
            case .status(let text): return text
            default: return nil
            }
        }
    }

    private let socket: TestSocket

    /// `redis://host:port/db` (no password: the test servers have none).
    public init(url: String) throws {
        guard let components = URLComponents(string: url), let port = components.port else {
            throw TestSocket.Failure.io("bad Redis URL \(url)")
        }
        socket = try TestSocket(host: components.host ?? "127.0.0.1", port: port)
        let database = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !database.isEmpty { _ = try command(["SELECT", database]) }
    }

    deinit { socket.close() }

    public func command(_ arguments: [String]) throws -> Value {
        try command(arguments.map { Array($0.utf8) })
    }

    public func command(_ arguments: [[UInt8]]) throws -> Value {
        var request = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments { request += Array("$\(argument.count)\r\n".utf8) + argument + [13, 10] }
        try socket.send(request)
        return try readValue()
    }

    /// Every key under `prefix` (SCAN, so it works on a busy server too).
    public func keys(prefix: String) throws -> [String] {
        var cursor = "0"
        var keys: [String] = []
        repeat {
            guard case .array(let reply) = try command(["SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"]),
                  reply.count == 2, let next = reply[0].text, case .array(let batch) = reply[1]
            else { throw TestSocket.Failure.io("bad SCAN reply") }
            keys += batch.compactMap(\.text)
            cursor = next
        } while cursor != "0"
        return keys
    }

    private func readLine() throws -> String {
        while true {
            if let end = socket.buffered.firstRange(of: [13, 10]) {
                let line = String(decoding: socket.buffered[..<end.lowerBound], as: UTF8.self)
                socket.buffered.removeFirst(end.upperBound)
                return line
            }
            _ = try socket.receiveMore()
        }
    }

    private func readValue() throws -> Value {
        let line = try readLine()
        guard let kind = line.first else { throw TestSocket.Failure.io("empty RESP line") }
        let rest = String(line.dropFirst())
        switch kind {
        case "+": return .status(rest)
        case "-": return .error(rest)
        case ":": return .integer(Int64(rest) ?? 0)
        case "$":
            guard let length = Int(rest) else { throw TestSocket.Failure.io("bad bulk length") }
            if length < 0 { return .bulk(nil) }
            let bytes = try socket.receive(exactly: length + 2)
            return .bulk(Array(bytes.prefix(length)))
        case "*":
            guard let count = Int(rest) else { throw TestSocket.Failure.io("bad array length") }
            return .array(try (0..<max(0, count)).map { _ in try readValue() })
        default:
            throw TestSocket.Failure.io("unknown RESP type \(kind)")
        }
    }
}
