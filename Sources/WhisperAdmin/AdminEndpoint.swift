import WhisperOps

/// Where the server's admin listener is: a URL `http[s]://HOST[:PORT]` (whisper-bench
/// `--admin-url`, `whisper-server admin --url`) or `WHISPER_ADMIN_ADDR` (`HOST:PORT`, as the
/// server reads it: plain HTTP, a wildcard bind address taken as the loopback one). The host
/// is a DNS name, an IPv4 literal or a bracketed IPv6 literal; libcurl resolves names, and
/// over https verifies the certificate against the URL's host.
public struct AdminEndpoint: Sendable, Equatable, CustomStringConvertible {
    public enum Scheme: String, Sendable {
        case http, https

        var defaultPort: Int { self == .http ? 80 : 443 }
    }

    public var scheme: Scheme
    public var host: String
    public var port: Int

    public init(host: String, port: Int, scheme: Scheme = .http) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// nil unless `text` is `http://` or `https://`, a host, an optional `:port` (default 80
    /// or 443) and an optional path (ignored); no user info, query or fragment.
    public init?(url text: String) {
        let schemes: [(String, Scheme)] = [("http://", .http), ("https://", .https)]
        guard let match = schemes.first(where: { text.hasPrefix($0.0) }) else { return nil }
        let (prefix, scheme) = match
        var authority = text.dropFirst(prefix.count)
        if let slash = authority.firstIndex(of: "/") { authority = authority[..<slash] }
        guard !authority.contains(where: { "@?#".contains($0) }),
              let spec = SocketAddressSpec.parse(String(authority))
                ?? SocketAddressSpec.parse("\(authority):\(scheme.defaultPort)"),
              spec.port > 0
        else { return nil }
        self.init(host: spec.host, port: Int(spec.port), scheme: scheme)
    }

    /// nil unless `text` is `host:port` or `[v6]:port` (as `WHISPER_ADMIN_ADDR` is read)
    /// with a port in 1…65535.
    public init?(address text: String) {
        guard let spec = SocketAddressSpec.parse(text), spec.port > 0 else { return nil }
        switch spec.host {
        case "0.0.0.0": host = "127.0.0.1"
        case "::": host = "::1"
        default: host = spec.host
        }
        port = Int(spec.port)
        scheme = .http
    }

    /// `scheme://host:port` followed by `path` (which starts with `/`).
    public func url(_ path: String) -> String { "\(scheme.rawValue)://\(authority)\(path)" }

    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public var description: String { url("") }
}
