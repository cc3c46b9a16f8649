internal import COpenSSL
import WhisperProtocol

/// The server side of the opening handshake (RFC 6455 §4.2): pure functions over the request
/// line's method and header list; the HTTP layer does the I/O.
public enum WebSocketHandshake {
    /// The GUID concatenated to the key before hashing (RFC 6455 §1.3).
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `base64(SHA-1(key + GUID))` (RFC 6455 §1.3, §4.2.2 item 5.4).
    public static func acceptValue(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        var length: UInt32 = 0
        // EVP_Digest is OpenSSL 3's non-deprecated route to SHA1(); it cannot fail for SHA-1 on
        // an in-memory buffer short of allocation failure, which the empty digest would expose.
        _ = input.withUnsafeBufferPointer { inputBuffer in
            digest.withUnsafeMutableBufferPointer { digestBuffer in
                EVP_Digest(inputBuffer.baseAddress, inputBuffer.count, digestBuffer.baseAddress, &length, EVP_sha1(), nil)
            }
        }
        return Base64.encode(digest)
    }

    /// Checks an upgrade request (RFC 6455 §4.2.1). Header names compare case-insensitively;
    /// `Upgrade` and `Connection` are token lists and may be repeated (RFC 7230 §3.2.2).
    public static func validate(method: String, headers: [(name: String, value: String)]) -> Result<WebSocketHandshakeRequest, WebSocketHandshakeError> {
        guard method == "GET" else { return .failure(.methodNotGet) }
        func values(_ name: String) -> [String] {
            headers.compactMap { $0.name.lowercased() == name ? $0.value : nil }
        }
        guard values("host").contains(where: { !trim($0).isEmpty }) else { return .failure(.missingHost) }
        guard tokens(values("upgrade")).contains("websocket") else { return .failure(.missingUpgradeWebSocket) }
        guard tokens(values("connection")).contains("upgrade") else { return .failure(.missingConnectionUpgrade) }
        let versions = values("sec-websocket-version")
        guard versions.count == 1, trim(versions[0]) == "13" else { return .failure(.unsupportedVersion) }
        let keys = values("sec-websocket-key")
        guard keys.count == 1 else { return .failure(.invalidKey) }
        let key = trim(keys[0])
        guard Base64.decode(String(key))?.count == 16 else { return .failure(.invalidKey) }
        let offers = WebSocketExtensionOffer.parse(headerValues: values("sec-websocket-extensions"))
        return .success(WebSocketHandshakeRequest(key: key, extensionOffers: offers))
    }

    /// Lower-cased, trimmed elements of comma-separated header values.
    static func tokens(_ values: [String]) -> Set<String> {
        var result: Set<String> = []
        for value in values {
            for element in value.split(separator: ",") {
                let token = trim(element).lowercased()
                if !token.isEmpty { result.insert(token) }
            }
        }
        return result
    }

    static func trim(_ value: some StringProtocol) -> String {
        let bytes = WebSocketExtensionOffer.trim(Array(value.utf8)[...])
        return String(decoding: bytes, as: UTF8.self)
    }
}
