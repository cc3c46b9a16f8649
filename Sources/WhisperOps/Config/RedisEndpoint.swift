import WhisperProtocol

/// Where Redis is, from `WHISPER_REDIS_URL`:
///
///     redis://[[username]:password@]host[:port][/db]
///     redis://password@host[:port][/db]
///     rediss://…  (the same over TLS)
///     redis[s]://[[username]:password@]host1[:port1],host2[:port2],…/     (Redis Cluster seeds)
///
/// `host` may be `[ipv6]`; port defaults to 6379 and db to 0. Username and password are
/// percent-decoded. `rediss://` sets `tls` (to the defaults; `ServerConfig` fills in the
/// `WHISPER_REDIS_TLS_*` files). Several comma-separated hosts are the seeds of a Redis Cluster
/// (`WHISPER_REDIS_CLUSTER=1`, which `ServerConfig` checks): the first is `host`/`port`, the
/// others `additionalNodes`; the credentials (and TLS) apply to every node.
public struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    public var database: Int
    /// Redis 6 ACL user; nil for the classic `AUTH password`.
    public var username: String?
    public var password: Secret?
    /// Non-nil for `rediss://`.
    public var tls: RedisTLSSettings?
    /// Redis Cluster (`WHISPER_REDIS_CLUSTER=1`, set by `ServerConfig`, not by the URL).
    public var cluster = false
    /// Seeds after the first (`host`/`port`), in the order given.
    public var additionalNodes: [Node] = []
    /// `WHISPER_REDIS_MIN_REPLICAS` (set by `ServerConfig`): replicas that must hold an accepted
    /// message (`WAIT`) before its `message_accepted`; 0 = no `WAIT`.
    public var minReplicas = 0
    /// `WHISPER_REDIS_WAIT_TIMEOUT_MS`: how long that `WAIT` may take.
    public var replicaWaitTimeoutMillis = 500

    /// One more `host:port` of a cluster URL.
    public struct Node: Sendable, Equatable {
        public var host: String
        public var port: UInt16

        public init(host: String, port: UInt16 = 6379) {
            self.host = host
            self.port = port
        }
    }

    public init(host: String, port: UInt16 = 6379, database: Int = 0, username: String? = nil,
                password: Secret? = nil, tls: RedisTLSSettings? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
        self.tls = tls
    }

    /// The URL with the password replaced by `***`: safe for logs.
    public var description: String {
        var userInfo = ""
        if username != nil || password != nil {
            userInfo = (username ?? "") + (password == nil ? "" : ":***") + "@"
        }
        let hosts = ([Node(host: host, port: port)] + additionalNodes).map { node in
            "\(node.host.contains(":") ? "[\(node.host)]" : node.host):\(node.port)"
        }
        return "\(tls == nil ? "redis" : "rediss")://\(userInfo)\(hosts.joined(separator: ","))/\(database)"
    }

    static let variable = "WHISPER_REDIS_URL"
    static let expectation = "redis[s]://[:password@]host[:port][,host[:port]…][/db]"

    /// Parses a redis URL; errors name `WHISPER_REDIS_URL` and never echo the password.
    public static func parse(_ text: String) throws(ConfigError) -> RedisEndpoint {
        let bytes = Array(text.utf8)
        let isTLS = hasScheme(bytes, "rediss://")
        let scheme = Array((isTLS ? "rediss://" : "redis://").utf8)
        guard bytes.count > scheme.count, isTLS || hasScheme(bytes, "redis://") else { throw invalid(text) }
        let rest = bytes[scheme.count...]
        let authorityEnd = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let path = rest[authorityEnd...]

        var endpoint = RedisEndpoint(host: "", tls: isTLS ? RedisTLSSettings() : nil)
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userInfo = authority[..<at]
            authority = authority[(at + 1)...]
            try parseUserInfo(userInfo, into: &endpoint, original: text)
        }
        let nodes = try authority.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { part throws(ConfigError) in try parseNode(part, original: text) }
        guard let first = nodes.first, nodes.count <= maximumNodes else { throw invalid(text) }
        endpoint.host = first.host
        endpoint.port = first.port
        endpoint.additionalNodes = Array(nodes.dropFirst())
        endpoint.database = try parseDatabase(path, original: text)
        return endpoint
    }

    /// Seeds in one URL: a cluster needs a few, not its every node.
    static let maximumNodes = 64

    /// `host[:port]`, `[ipv6][:port]`.
    private static func parseNode(_ authority: ArraySlice<UInt8>, original: String) throws(ConfigError) -> Node {
        if let colon = authority.lastIndex(of: UInt8(ascii: ":")), authority.last != UInt8(ascii: "]") {
            guard let port = SocketAddressSpec.parsePort(authority[(colon + 1)...], allowZero: false),
                  let host = SocketAddressSpec.parseHost(authority[..<colon])
            else { throw invalid(original) }
            return Node(host: host, port: port)
        }
        guard let host = SocketAddressSpec.parseHost(authority) else { throw invalid(original) }
        return Node(host: host)
    }

    private static func hasScheme(_ bytes: [UInt8], _ scheme: String) -> Bool {
        let expected = Array(scheme.utf8)
        return bytes.count >= expected.count && bytes[..<expected.count].map({ $0 | 0x20 }) == expected
    }

    /// `user:password`, `:password`, or a bare `password`: without a colon the userinfo is the
    /// password, as `redis-cli -u` reads it (an ACL user without a password cannot AUTH, and
    /// taking a password for a user name would also print it in logs).
    private static func parseUserInfo(_ userInfo: ArraySlice<UInt8>, into endpoint: inout RedisEndpoint,
                                      original: String) throws(ConfigError) {
        let passwordPart: ArraySlice<UInt8>
        if let colon = userInfo.firstIndex(of: UInt8(ascii: ":")) {
            guard let user = PercentDecoding.decode(userInfo[..<colon]) else { throw invalid(original) }
            endpoint.username = user.isEmpty ? nil : user
            passwordPart = userInfo[(colon + 1)...]
        } else {
            passwordPart = userInfo
        }
        guard let password = PercentDecoding.decode(passwordPart) else { throw invalid(original) }
        endpoint.password = password.isEmpty ? nil : Secret(password)
    }

    /// `""`, `"/"` → 0; `"/N"` → N. Queries and fragments are not supported.
    private static func parseDatabase(_ path: ArraySlice<UInt8>, original: String) throws(ConfigError) -> Int {
        let digits = path.dropFirst()
        if digits.isEmpty { return 0 }
        guard digits.count <= 6,
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { throw invalid(original) }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// An error that echoes the URL with the password (bare or after a colon) reduced to `***`.
    private static func invalid(_ text: String) -> ConfigError {
        ConfigError.invalid(variable, expected: expectation,
                            got: URLRedaction.redactUserInfo(text, bareUserInfoIsPassword: true))
    }
}
