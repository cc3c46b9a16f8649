import WhisperOps
import WhisperProtocol

/// AWS Signature Version 4 (docs/protocol.md "Attachments"; AWS's "Create a signed AWS API
/// request"): the canonical request, the string to sign, the derived signing key and the
/// signature. Pure: the clock and the request come in, hex comes out, so AWS's published test
/// vectors check it byte for byte (SigV4Tests).
///
///     CanonicalRequest = Method \n CanonicalURI \n CanonicalQuery \n CanonicalHeaders \n
///                        SignedHeaders \n HashedPayload
///     StringToSign     = "AWS4-HMAC-SHA256" \n DateTime \n Scope \n hex(SHA256(CanonicalRequest))
///     SigningKey       = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, Date), Region), Service), "aws4_request")
public struct SigV4: Sendable {
    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The payload hash of a presigned URL: the body is not known when the URL is made.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    public struct Request: Sendable {
        public var method: String
        /// The path, already URI-encoded (`SigV4.uriEncode(_:keepSlash: true)`).
        public var canonicalURI: String
        /// Query parameters, not yet encoded.
        public var query: [(name: String, value: String)]
        /// Headers to sign; names in any case.
        public var headers: [(name: String, value: String)]
        public var payloadHash: String

        public init(method: String, canonicalURI: String, query: [(name: String, value: String)] = [],
                    headers: [(name: String, value: String)], payloadHash: String) {
            self.method = method
            self.canonicalURI = canonicalURI
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// `YYYYMMDD` (the scope's date) and `YYYYMMDDTHHMMSSZ` (`X-Amz-Date`), both UTC.
    public struct Timestamp: Sendable, Equatable {
        public let date: String
        public let dateTime: String

        public init(epochSeconds: Int64) {
            // RFC 3339 "2013-05-24T00:00:00.000Z" → "20130524T000000Z".
            let text = WallTime(secondsSinceEpoch: epochSeconds, nanoseconds: 0).rfc3339
            let basic = text.utf8.prefix(19).filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: ":") }
            dateTime = String(decoding: basic, as: UTF8.self) + "Z"
            date = String(decoding: basic.prefix(8), as: UTF8.self)
        }
    }

    public let accessKey: String
    public let secretKey: String
    public let region: String
    public let service: String

    public init(accessKey: String, secretKey: String, region: String, service: String) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.region = region
        self.service = service
    }

    /// `<date>/<region>/<service>/aws4_request`.
    public func scope(_ time: Timestamp) -> String { "\(time.date)/\(region)/\(service)/aws4_request" }

    /// The canonical request and its `SignedHeaders` list.
    public static func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
        // Lower-case names, values trimmed with inner runs of spaces collapsed, sorted by name.
        let headers = request.headers.map { (name: $0.name.lowercased(), value: collapseSpaces($0.value)) }
            .sorted { $0.name < $1.name }
        let signedHeaders = headers.map(\.name).joined(separator: ";")
        var text = request.method + "\n" + request.canonicalURI + "\n" + canonicalQuery(request.query) + "\n"
        for header in headers { text += header.name + ":" + header.value + "\n" }
        text += "\n" + signedHeaders + "\n" + request.payloadHash
        return (text, signedHeaders)
    }

    /// Parameters URI-encoded, then sorted by encoded name (and value), joined with `&`.
    public static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { parameter in
            (name: uriEncode(parameter.name, keepSlash: false), value: uriEncode(parameter.value, keepSlash: false))
        }
        let sorted = encoded.sorted { left, right in
            left.name == right.name ? left.value < right.value : left.name < right.name
        }
        return sorted.map { parameter in parameter.name + "=" + parameter.value }.joined(separator: "&")
    }

    public func stringToSign(canonicalRequest: String, at time: Timestamp) -> String {
        Self.algorithm + "\n" + time.dateTime + "\n" + scope(time) + "\n" + SHA256Digest.hex(Array(canonicalRequest.utf8))
    }

    public func signingKey(date: String) -> [UInt8] {
        var key = HMACSHA256.authenticate(Array(date.utf8), key: Array(("AWS4" + secretKey).utf8))
        for part in [region, service, "aws4_request"] { key = HMACSHA256.authenticate(Array(part.utf8), key: key) }
        return key
    }

    /// Lower-case hex signature of `request` at `time`.
    public func signature(_ request: Request, at time: Timestamp) -> String {
        let toSign = stringToSign(canonicalRequest: Self.canonicalRequest(request).text, at: time)
        return Hex.encode(HMACSHA256.authenticate(Array(toSign.utf8), key: signingKey(date: time.date)))
    }

    /// AWS's URI encoding: unreserved bytes (`A-Z a-z 0-9 - _ . ~`) as they are, every other
    /// byte of the UTF-8 as `%XX` with upper-case hex; `/` kept in paths, encoded elsewhere.
    public static func uriEncode(_ text: String, keepSlash: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(upperHexDigit(byte >> 4))
                out.append(upperHexDigit(byte & 0x0F))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
    }

    private static func upperHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    private static func collapseSpaces(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
