/// Push providers (docs/operations.md "Push"). Each is optional: without its settings that
/// provider is disabled (one start-up line says so) and the server runs without it. Only paths and
/// names are configuration; the server reads the key files at start-up and stops there, naming
/// the variable, if one is unreadable or not a key of the right kind.
public struct PushSettings: Sendable, Equatable {
    /// APNs token-based authentication: the `.p8` signing key, its key id, the team id, and the
    /// app's bundle id (`apns-topic`; VoIP pushes use `<topic>.voip`).
    public struct APNs: Sendable, Equatable {
        public var keyFile: String
        public var keyId: String
        public var teamId: String
        public var topic: String
        /// `https://` base URL without a trailing slash.
        public var endpoint: String

        public init(keyFile: String, keyId: String, teamId: String, topic: String, endpoint: String) {
            self.keyFile = keyFile
            self.keyId = keyId
            self.teamId = teamId
            self.topic = topic
            self.endpoint = endpoint
        }
    }

    /// FCM HTTP v1: a service-account JSON (its `project_id`, `client_email`, `private_key`
    /// and `token_uri`, used as given).
    public struct FCM: Sendable, Equatable {
        public var credentialsFile: String
        /// `https://` base URL without a trailing slash.
        public var endpoint: String

        public init(credentialsFile: String, endpoint: String) {
            self.credentialsFile = credentialsFile
            self.endpoint = endpoint
        }
    }

    public var apns: APNs?
    public var fcm: FCM?
    /// An extra CA (PEM) trusted for provider endpoints besides the system's, for private
    /// deployments and tests. Certificates are always verified.
    public var caFile: String?

    public init(apns: APNs?, fcm: FCM?, caFile: String?) {
        self.apns = apns
        self.fcm = fcm
        self.caFile = caFile
    }

    public static let apnsProductionEndpoint = "https://api.push.apple.com"
    public static let fcmEndpoint = "https://fcm.googleapis.com"

    static let apnsVariables = ["WHISPER_APNS_KEY_FILE", "WHISPER_APNS_KEY_ID", "WHISPER_APNS_TEAM_ID", "WHISPER_APNS_TOPIC"]

    static func load(from environment: EnvironmentReader) throws(ConfigError) -> PushSettings {
        var settings = PushSettings(apns: nil, fcm: nil, caFile: environment.raw("WHISPER_PUSH_CA_FILE"))
        // Read whether or not their provider is on, so that they count as known variables.
        let apnsEndpoint = environment.trimmed("WHISPER_APNS_ENDPOINT")
        let fcmEndpoint = environment.trimmed("WHISPER_FCM_ENDPOINT")
        if apnsVariables.contains(where: { environment.raw($0) != nil }) {
            var values: [String] = []
            for name in apnsVariables {
                guard let value = environment.trimmed(name) else {
                    throw .missing(variable: name, reason: "required when other WHISPER_APNS_* are set")
                }
                values.append(value)
            }
            for (name, value) in zip(apnsVariables.dropFirst(), values.dropFirst())
            where !value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
                throw ConfigError.invalid(name, expected: "printable ASCII without spaces", got: value)
            }
            settings.apns = APNs(keyFile: values[0], keyId: values[1], teamId: values[2], topic: values[3],
                                 endpoint: try endpoint("WHISPER_APNS_ENDPOINT", apnsEndpoint, default: apnsProductionEndpoint))
        }
        if let file = environment.raw("WHISPER_FCM_CREDENTIALS_FILE") {
            settings.fcm = FCM(credentialsFile: file,
                               endpoint: try endpoint("WHISPER_FCM_ENDPOINT", fcmEndpoint, default: Self.fcmEndpoint))
        }
        return settings
    }

    /// An `https://` origin (a provider is never reached in clear text).
    private static func endpoint(_ name: String, _ value: String?,
                                 default defaultValue: String) throws(ConfigError) -> String {
        guard var url = value else { return defaultValue }
        guard url.lowercased().hasPrefix("https://"), url.utf8.count > 8,
              !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
              !url.contains("@"), !url.contains("?"), !url.contains("#")
        else {
            throw ConfigError.invalid(name, expected: "an https:// URL", got: URLRedaction.redact(url))
        }
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
