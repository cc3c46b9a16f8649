/// PROXY protocol v2 on the public listener (docs/operations.md "Behind a load balancer"):
/// `WHISPER_PROXY_PROTOCOL=1` with `WHISPER_PROXY_PROTOCOL_SOURCES`, the comma-separated CIDRs of
/// the balancers. A connection from inside them must open with a v2 header, whose client address
/// then stands for the connection everywhere; any other connection is a direct client whose
/// bytes are never read as a header. Off (nil) by default.
public struct ProxyProtocolSettings: Sendable, Equatable {
    public var trustedSources: [CIDRBlock]

    public init(trustedSources: [CIDRBlock]) {
        self.trustedSources = trustedSources
    }

    static func load(from env: EnvironmentReader) throws(ConfigError) -> ProxyProtocolSettings? {
        let enabled = try env.bool("WHISPER_PROXY_PROTOCOL", default: false)
        // Parsed even when off, so a typo is found before the day the switch is turned on.
        let sources = try env.trimmed("WHISPER_PROXY_PROTOCOL_SOURCES").map { list throws(ConfigError) in
            try parseSources(list)
        }
        guard enabled else { return nil }
        guard let sources else {
            throw .missing(variable: "WHISPER_PROXY_PROTOCOL_SOURCES",
                           reason: "required when WHISPER_PROXY_PROTOCOL=1: the CIDRs of the load balancers, e.g. 10.0.0.0/8,fd00::/8")
        }
        return ProxyProtocolSettings(trustedSources: sources)
    }

    private static func parseSources(_ list: String) throws(ConfigError) -> [CIDRBlock] {
        var sources: [CIDRBlock] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            let text = item.trimmingASCIIWhitespace()
            guard let block = CIDRBlock(text) else {
                throw ConfigError.invalid("WHISPER_PROXY_PROTOCOL_SOURCES",
                                          expected: "comma-separated IPv4/IPv6 CIDRs without host bits (10.0.0.0/8, fd00::/8)",
                                          got: text)
            }
            sources.append(block)
        }
        return sources
    }
}
