/// `--admin-url http://HOST:PORT`: where the server's `/metrics` is. Numeric hosts only (the
/// admin listener binds a literal address); `localhost` is taken as 127.0.0.1.
public struct AdminEndpoint: Sendable, Equatable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// nil unless `text` is `http://host:port` with an optional trailing path (ignored).
    public init?(url text: String) {
        guard text.hasPrefix("http://") else { return nil }
        var rest = text.dropFirst("http://".count)
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
              (1...65_535).contains(port) else { return nil }
        var host = String(rest[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host == "localhost" ? "127.0.0.1" : host
        self.port = port
    }
}
