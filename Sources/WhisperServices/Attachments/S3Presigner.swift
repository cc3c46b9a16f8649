import WhisperOps

/// SigV4 query-presigned URLs for one bucket of an S3-compatible store (docs/protocol.md
/// "Attachments"). The URL carries `X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`,
/// `X-Amz-Expires`, `X-Amz-SignedHeaders` and `X-Amz-Signature`; the payload is
/// `UNSIGNED-PAYLOAD`. Headers passed in are signed with `host`, so the client must send them
/// with exactly these values (the store answers 403 otherwise).
public struct S3Presigner: Sendable {
    /// AWS caps `X-Amz-Expires` at seven days.
    public static let maxExpirySeconds = 604_800

    private let signer: SigV4
    private let scheme: String
    /// `host[:port]` as the client will send it in `Host`.
    private let authority: String
    /// The path before the object key: `/<bucket>` path-style, the endpoint's own path
    /// (usually empty) with virtual-hosted buckets.
    private let basePath: String

    /// URLs on `endpoint`, `settings.publicEndpoint` for clients or `settings.endpoint` for the
    /// server's own requests: the host is signed, so a URL only works on the host it names.
    public init(settings: S3Settings, endpoint: String) {
        signer = SigV4(accessKey: settings.accessKey.unredacted, secretKey: settings.secretKey.unredacted,
                       region: settings.region, service: "s3")
        // S3Settings guarantees http:// or https:// endpoints without a trailing slash.
        let https = endpoint.lowercased().hasPrefix("https://")
        let scheme = https ? "https" : "http"
        let rest = String(endpoint.dropFirst(https ? 8 : 7))
        let slash = rest.firstIndex(of: "/")
        var host = String(slash.map { rest[..<$0] } ?? rest[...]).lowercased()
        // Clients leave the scheme's default port out of `Host`, and `host` is signed.
        let defaultPort = https ? ":443" : ":80"
        if host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        let path = slash.map { String(rest[$0...]) } ?? ""
        self.scheme = scheme
        if settings.pathStyle {
            authority = host
            basePath = path + "/" + settings.bucket
        } else {
            authority = settings.bucket + "." + host
            basePath = path
        }
    }

    /// A URL for `method` on `objectKey`, valid `expiresSeconds` from `nowSeconds` (epoch).
    public func presign(method: String, objectKey: String, headers: [(name: String, value: String)] = [],
                        expiresSeconds: Int, nowSeconds: Int64) -> String {
        let time = SigV4.Timestamp(epochSeconds: nowSeconds)
        let path = basePath + "/" + SigV4.uriEncode(objectKey, keepSlash: true)
        let signed = [(name: "host", value: authority)] + headers
        let signedNames = signed.map { $0.name.lowercased() }.sorted().joined(separator: ";")
        let query: [(name: String, value: String)] = [
            ("X-Amz-Algorithm", SigV4.algorithm),
            ("X-Amz-Credential", signer.accessKey + "/" + signer.scope(time)),
            ("X-Amz-Date", time.dateTime),
            ("X-Amz-Expires", String(min(max(expiresSeconds, 1), Self.maxExpirySeconds))),
            ("X-Amz-SignedHeaders", signedNames),
        ]
        let request = SigV4.Request(method: method, canonicalURI: path, query: query, headers: signed,
                                    payloadHash: SigV4.unsignedPayload)
        let signature = signer.signature(request, at: time)
        return scheme + "://" + authority + path + "?" + SigV4.canonicalQuery(query) + "&X-Amz-Signature=" + signature
    }
}
