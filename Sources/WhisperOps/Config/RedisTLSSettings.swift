/// TLS towards Redis, on when `WHISPER_REDIS_URL` is `rediss://` (docs/operations.md "Redis over
/// TLS"). The server's certificate is always verified: its chain against `caFile` (or the system
/// trust store) and its name or IP address against `serverName` (or the URL's host). Only the paths
/// are configuration; the Redis client reads the files when it is created.
///
/// | variable | meaning |
/// |---|---|
/// | `WHISPER_REDIS_TLS_CA_FILE` | PEM CA bundle for the server's certificate; unset = system trust store |
/// | `WHISPER_REDIS_TLS_CERT_FILE`, `WHISPER_REDIS_TLS_KEY_FILE` | client certificate chain and key, both or neither |
/// | `WHISPER_REDIS_TLS_SERVER_NAME` | name the certificate must carry (and SNI) when it is not the URL's host |
public struct RedisTLSSettings: Sendable, Equatable {
    public var caFile: String?
    public var certificateFile: String?
    public var keyFile: String?
    public var serverName: String?

    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, serverName: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.serverName = serverName
    }

    /// The settings for a `rediss://` URL (`enabled`); any of them set for a plain `redis://` URL is
    /// a mistake that would leave Redis traffic in the clear, so it stops start-up.
    static func load(from env: EnvironmentReader, enabled: Bool) throws(ConfigError) -> RedisTLSSettings? {
        let settings = RedisTLSSettings(caFile: env.trimmed("WHISPER_REDIS_TLS_CA_FILE"),
                                        certificateFile: env.trimmed("WHISPER_REDIS_TLS_CERT_FILE"),
                                        keyFile: env.trimmed("WHISPER_REDIS_TLS_KEY_FILE"),
                                        serverName: env.trimmed("WHISPER_REDIS_TLS_SERVER_NAME"))
        switch (settings.certificateFile, settings.keyFile) {
        case (nil, _?):
            throw .missing(variable: "WHISPER_REDIS_TLS_CERT_FILE", reason: "required when WHISPER_REDIS_TLS_KEY_FILE is set")
        case (_?, nil):
            throw .missing(variable: "WHISPER_REDIS_TLS_KEY_FILE", reason: "required when WHISPER_REDIS_TLS_CERT_FILE is set")
        default:
            break
        }
        if enabled { return settings }
        if settings != RedisTLSSettings() {
            throw .conflict(variable: "WHISPER_REDIS_URL",
                            reason: "WHISPER_REDIS_TLS_* is set but the URL is redis://; use rediss:// for TLS")
        }
        return nil
    }
}
