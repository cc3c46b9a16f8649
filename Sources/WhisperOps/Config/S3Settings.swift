/// The S3-compatible object store for attachments and contact backups.
///
/// Set `WHISPER_S3_BUCKET`, `WHISPER_S3_ACCESS_KEY` and `WHISPER_S3_SECRET_KEY` to enable it;
/// setting only some of the S3 variables is an error naming the first missing one. With none set,
/// attachments are disabled. `WHISPER_S3_REGION` defaults to `us-east-1`, `WHISPER_S3_ENDPOINT`
/// to `https://s3.<region>.amazonaws.com`, `WHISPER_S3_PATH_STYLE` to false (true for MinIO,
/// LocalStack and most self-hosted stores). `WHISPER_S3_PUBLIC_ENDPOINT` (default: the endpoint) is
/// the address phones reach the store at, which presigned URLs name and are signed for (SigV4
/// signs `Host`); the server's own requests (GC deletes) go to `WHISPER_S3_ENDPOINT`. They differ
/// when the relay reaches the store on a private network (compose: `http://minio:9000`).
public struct S3Settings: Sendable, Equatable {
    /// `http://` or `https://` base URL, without a trailing slash: where the server sends its own
    /// requests.
    public var endpoint: String
    /// The same form: the base of the presigned URLs handed to clients.
    public var publicEndpoint: String
    public var region: String
    public var bucket: String
    /// The access key id; not secret in itself but kept out of logs anyway.
    public var accessKey: Secret
    public var secretKey: Secret
    public var pathStyle: Bool

    public init(endpoint: String, publicEndpoint: String? = nil, region: String, bucket: String, accessKey: Secret,
                secretKey: Secret, pathStyle: Bool) {
        self.endpoint = endpoint
        self.publicEndpoint = publicEndpoint ?? endpoint
        self.region = region
        self.bucket = bucket
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.pathStyle = pathStyle
    }

    static let variables = [
        "WHISPER_S3_ENDPOINT", "WHISPER_S3_REGION", "WHISPER_S3_BUCKET", "WHISPER_S3_ACCESS_KEY",
        "WHISPER_S3_SECRET_KEY", "WHISPER_S3_PATH_STYLE", "WHISPER_S3_PUBLIC_ENDPOINT",
    ]

    static func load(from environment: EnvironmentReader) throws(ConfigError) -> S3Settings? {
        let pathStyle = try environment.bool("WHISPER_S3_PATH_STYLE", default: false)
        guard variables.contains(where: { environment.raw($0) != nil }) else { return nil }
        let region = environment.trimmed("WHISPER_S3_REGION") ?? "us-east-1"
        guard region.utf8.allSatisfy(isRegionByte) else {
            throw ConfigError.invalid("WHISPER_S3_REGION", expected: "a region name like us-east-1", got: region)
        }
        let endpoint = try baseURL("WHISPER_S3_ENDPOINT", environment.trimmed("WHISPER_S3_ENDPOINT")
            ?? "https://s3.\(region).amazonaws.com")
        var publicEndpoint: String?
        if let value = environment.trimmed("WHISPER_S3_PUBLIC_ENDPOINT") {
            publicEndpoint = try baseURL("WHISPER_S3_PUBLIC_ENDPOINT", value)
        }
        guard let bucket = environment.trimmed("WHISPER_S3_BUCKET") else {
            throw .missing(variable: "WHISPER_S3_BUCKET", reason: "required when other WHISPER_S3_* are set")
        }
        guard bucket.utf8.count >= 3, bucket.utf8.count <= 63, bucket.utf8.allSatisfy(isBucketByte) else {
            throw ConfigError.invalid("WHISPER_S3_BUCKET",
                                      expected: "a bucket name of 3-63 lowercase letters, digits, '.', '-'",
                                      got: bucket)
        }
        guard let accessKey = environment.raw("WHISPER_S3_ACCESS_KEY") else {
            throw .missing(variable: "WHISPER_S3_ACCESS_KEY", reason: "required when other WHISPER_S3_* are set")
        }
        guard let secretKey = environment.raw("WHISPER_S3_SECRET_KEY") else {
            throw .missing(variable: "WHISPER_S3_SECRET_KEY", reason: "required when other WHISPER_S3_* are set")
        }
        return S3Settings(endpoint: endpoint, publicEndpoint: publicEndpoint, region: region, bucket: bucket,
                          accessKey: Secret(accessKey), secretKey: Secret(secretKey), pathStyle: pathStyle)
    }

    /// `value` as an http:// or https:// base URL without a trailing slash, or the error naming `variable`.
    private static func baseURL(_ variable: String, _ value: String) throws(ConfigError) -> String {
        let lower = value.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
              !value.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
              !value.contains("@"), !value.contains("?"), !value.contains("#")
        else {
            throw ConfigError.invalid(variable, expected: "an http:// or https:// URL", got: URLRedaction.redact(value))
        }
        var url = value
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    private static func isRegionByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-")
    }

    private static func isBucketByte(_ byte: UInt8) -> Bool {
        isRegionByte(byte) || byte == UInt8(ascii: ".")
    }
}
