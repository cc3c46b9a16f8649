import WhisperOps

/// Where the server's admin listener is: `--admin-url http://HOST:PORT` (whisper-bench,
/// `whisper-server admin --url`) or `WHISPER_ADMIN_ADDR` (`HOST:PORT`, as the server
/// reads it). Numeric hosts only (the admin listener binds a literal address);
/// `localhost` is taken as 127.0.0.1, and a wildcard bind address as the loopback one.
public struct AdminEndpoint: Sendable, Equatable, CustomStringConvertible {
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
        self.init(address: String(rest))
    }

    /// nil unless `text` is `host:port` or `[v6]:port` (as `WHISPER_ADMIN_ADDR` is read)
    /// with a port in 1…65535.
    public init?(address text: String) {
        guard let spec = SocketAddressSpec.parse(text), spec.port > 0 else { return nil }
        switch spec.host {
        case "localhost", "0.0.0.0": host = "127.0.0.1"
        case "::": host = "::1"
        default: host = spec.host
        }
        port = Int(spec.port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
