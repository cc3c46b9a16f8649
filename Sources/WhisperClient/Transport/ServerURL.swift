/// A relay or storage address as a user types it: `http://`, `https://`, `ws://` or `wss://`,
/// a host (name, IPv4, or `[IPv6]`), an optional port, an optional path. `https`/`wss` mean TLS.
public struct ServerURL: Equatable, Sendable {
    public let tls: Bool
    public let host: String
    public let port: Int
    /// The path and query, `/` when absent.
    public let path: String

    public init?(_ text: String) {
        let schemes: [(String, Bool, Int)] = [("https://", true, 443), ("wss://", true, 443),
                                              ("http://", false, 80), ("ws://", false, 80)]
        guard let (prefix, tls, defaultPort) = schemes.first(where: { text.lowercased().hasPrefix($0.0) }) else { return nil }
        let rest = text.dropFirst(prefix.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let path = rest.dropFirst(authority.count)
        var host = Substring(authority), port = defaultPort
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65_535).contains(value) else { return nil }
                port = value
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let value = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(value) else { return nil }
            host = authority[..<colon]
            port = value
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "@" }) else { return nil }
        self.tls = tls
        self.host = String(host)
        self.port = port
        self.path = path.isEmpty ? "/" : (path.hasPrefix("?") ? "/" + path : String(path))
    }

    /// `Host:` header value.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return (tls && port == 443) || (!tls && port == 80) ? name : "\(name):\(port)"
    }

    /// `http(s)://host[:port]` without a path.
    public var httpBase: String { (tls ? "https://" : "http://") + hostHeader }
}
