/// Where and how to reach Redis. Built from `redis://[[user]:password@]host[:port][/db]`
/// (contract §13 `WHISPER_REDIS_URL`), or field by field by the config module.
public struct RedisConfiguration: Sendable, Equatable {
    /// Prefer an IP address. hiredis 0.14 resolves names with a blocking `getaddrinfo` on
    /// the loop thread at every (re)connect, and tries only the first address it gets.
    public var host: String
    public var port: Int
    /// ACL user (Redis 6+); nil sends `AUTH password`.
    public var username: String?
    public var password: String?
    public var database: Int
    /// A reply slower than this marks the connection broken (hiredis 0.14 has no async
    /// timeouts, so the loop's timers enforce it). Also bounds the TCP connect.
    public var commandTimeoutMillis: Int
    public var reconnectInitialMillis: Int
    public var reconnectMaximumMillis: Int

    public init(host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil,
                database: Int = 0, commandTimeoutMillis: Int = 5_000,
                reconnectInitialMillis: Int = 50, reconnectMaximumMillis: Int = 2_000) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.commandTimeoutMillis = commandTimeoutMillis
        self.reconnectInitialMillis = reconnectInitialMillis
        self.reconnectMaximumMillis = reconnectMaximumMillis
    }

    /// Parses `redis://[[user]:password@]host[:port][/db]`. Percent-escapes in the user
    /// and password are decoded; `[::1]` brackets an IPv6 host. TLS (`rediss://`) is not
    /// supported by hiredis 0.14 and is refused rather than silently downgraded.
    public init(url: String) throws(RedisError) {
        self.init()
        let prefix = "redis://"
        guard url.hasPrefix(prefix) else { throw .invalidURL("expected redis://host:port/db") }
        var rest = Substring(url.dropFirst(prefix.count))
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                let user = try Self.percentDecode(userinfo[..<colon])
                username = user.isEmpty ? nil : user
                password = try Self.percentDecode(userinfo[userinfo.index(after: colon)...])
            } else if !userinfo.isEmpty {
                // redis://secret@host is a common shorthand for a password.
                password = try Self.percentDecode(userinfo)
            }
        }
        var hostPart = rest
        var portPart: Substring? = nil
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw .invalidURL("unterminated IPv6 host") }
            let after = hostPart[hostPart.index(after: close)...]
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty {
                throw .invalidURL("unexpected text after IPv6 host")
            }
        } else if let colon = hostPart.lastIndex(of: ":") {
            portPart = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        guard !hostPart.isEmpty else { throw .invalidURL("missing host") }
        host = String(hostPart)
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else { throw .invalidURL("bad port") }
            port = value
        }
        if !path.isEmpty {
            guard let value = Int(path), value >= 0 else { throw .invalidURL("bad database number") }
            database = value
        }
    }

    /// `host:port/db` without credentials, for logs.
    public var redactedDescription: String {
        "redis://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }

    private static func percentDecode(_ text: Substring) throws(RedisError) -> String {
        var out: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                  let decoded = Hex.decode([high, low]), let value = decoded.first
            else { throw .invalidURL("bad percent escape") }
            out.append(value)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
