import WhisperProtocol

/// The client side of the opening handshake (RFC 6455 §4.1): the request, and the checks on
/// the response head. Pure; `BenchClient` does the I/O.
public struct ClientHandshake: Sendable {
    /// The response head may not exceed this (it is a few hundred octets in practice).
    public static let maxHeadBytes = 16_384

    public let key: String
    public let offersDeflate: Bool
    public let request: [UInt8]

    /// `keyBytes`: 16 random octets (§4.1: "randomly selected"; they only need to vary).
    public init(host: String, path: String, offerDeflate: Bool, keyBytes: [UInt8]) {
        key = Base64.encode(keyBytes)
        offersDeflate = offerDeflate
        var text = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if offerDeflate { text += "Sec-WebSocket-Extensions: \(NegotiatedDeflate.offer)\r\n" }
        text += "\r\n"
        request = Array(text.utf8)
    }

    /// The index just past the `CRLF CRLF` ending the head, if it is complete.
    public static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    /// Checks the response head (§4.1, items 1–6 of the client's checks); on success, the
    /// permessage-deflate agreement if the server accepted our offer.
    public func validate(head: ArraySlice<UInt8>) -> Result<NegotiatedDeflate?, ClientHandshakeError> {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: true)
        guard let statusLine = lines.first else { return .failure(.malformedResponse) }
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            return .failure(.malformedResponse)
        }
        guard status == 101 else { return .failure(.status(status)) }
        var upgrade = "", connection = "", accept = ""
        var extensions: [String] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return .failure(.malformedResponse) }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...]).trimmingSpaces()
            switch name {
            case "upgrade": upgrade = value.lowercased()
            case "connection": connection += "," + value.lowercased()
            case "sec-websocket-accept": accept = value
            case "sec-websocket-extensions": extensions.append(value)
            default: break
            }
        }
        guard upgrade == "websocket",
              connection.split(separator: ",").contains(where: { String($0).trimmingSpaces() == "upgrade" })
        else { return .failure(.missingUpgrade) }
        guard accept == WebSocketHandshake.acceptValue(forKey: key) else { return .failure(.badAccept) }
        let accepted = WebSocketExtensionOffer.parse(headerValues: extensions)
        guard let first = accepted.first else { return .success(nil) }
        // §9.1: the server may only answer with what the client offered.
        guard offersDeflate, accepted.count == 1, first.name.lowercased() == PerMessageDeflate.extensionName,
              let deflate = NegotiatedDeflate(response: first)
        else { return .failure(.unexpectedExtension(first.name)) }
        return .success(deflate)
    }
}
