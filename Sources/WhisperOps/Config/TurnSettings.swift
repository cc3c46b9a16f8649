/// TURN REST credentials (coturn `use-auth-secret`): the shared secret and the URLs handed to
/// clients. `WHISPER_TURN_SECRET` and `WHISPER_TURN_URLS` are both set or neither (no TURN).
public struct TurnSettings: Sendable, Equatable {
    public var secret: Secret
    /// `turn:`, `turns:` or `stun:` URIs (RFC 7065 / RFC 7064), in configured order.
    public var urls: [String]

    public init(secret: Secret, urls: [String]) {
        self.secret = secret
        self.urls = urls
    }

    static func load(from environment: EnvironmentReader) throws(ConfigError) -> TurnSettings? {
        let secret = environment.raw("WHISPER_TURN_SECRET")
        let urlList = environment.trimmed("WHISPER_TURN_URLS")
        switch (secret, urlList) {
        case (nil, nil):
            return nil
        case (nil, _):
            throw .missing(variable: "WHISPER_TURN_SECRET", reason: "required when WHISPER_TURN_URLS is set")
        case (_, nil):
            throw .missing(variable: "WHISPER_TURN_URLS", reason: "required when WHISPER_TURN_SECRET is set")
        case (let secret?, let urlList?):
            return TurnSettings(secret: Secret(secret), urls: try parseURLs(urlList))
        }
    }

    private static func parseURLs(_ list: String) throws(ConfigError) -> [String] {
        var urls: [String] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            let url = item.trimmingASCIIWhitespace()
            let lower = url.lowercased()
            let schemes = ["turn:", "turns:", "stun:", "stuns:"]
            guard let scheme = schemes.first(where: { lower.hasPrefix($0) }),
                  url.utf8.count > scheme.utf8.count,
                  !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
            else {
                throw ConfigError.invalid("WHISPER_TURN_URLS",
                                          expected: "comma-separated turn:, turns: or stun: URIs", got: url)
            }
            urls.append(url)
        }
        return urls
    }
}
