/// One extension offered in `Sec-WebSocket-Extensions` (RFC 6455 §9.1):
///
/// ```
/// Sec-WebSocket-Extensions = extension-list
/// extension-list = 1#extension
/// extension = extension-token *( ";" extension-param )
/// extension-param = token [ "=" (token | quoted-string) ]
/// ```
public struct WebSocketExtensionOffer: Equatable, Sendable {
    public struct Parameter: Equatable, Sendable {
        public var name: String
        /// nil for a parameter without `=`; quoted-string values arrive unescaped.
        public var value: String?

        public init(name: String, value: String? = nil) {
            self.name = name
            self.value = value
        }
    }

    public var name: String
    public var parameters: [Parameter]

    public init(name: String, parameters: [Parameter] = []) {
        self.name = name
        self.parameters = parameters
    }

    /// Parses every offer in one or more `Sec-WebSocket-Extensions` field values, in order.
    ///
    /// Several header lines are one comma-separated list (RFC 7230 §3.2.2). A malformed element
    /// is skipped rather than failing the handshake: extensions are optional, and declining an
    /// offer we cannot read is always safe. Empty list elements are ignored (RFC 7230 §7).
    public static func parse(headerValues: [String]) -> [WebSocketExtensionOffer] {
        var offers: [WebSocketExtensionOffer] = []
        for value in headerValues {
            let bytes = Array(value.utf8)
            for element in split(bytes[...], on: UInt8(ascii: ",")) {
                if let offer = parseElement(element) { offers.append(offer) }
            }
        }
        return offers
    }

    /// One list element: `token *( ";" param )`; nil when empty (skipped) or malformed (declined).
    private static func parseElement(_ element: ArraySlice<UInt8>) -> WebSocketExtensionOffer? {
        let pieces = split(element, on: UInt8(ascii: ";"))
        guard let first = pieces.first else { return nil }
        let name = trim(first)
        guard isToken(name) else { return nil }
        var parameters: [Parameter] = []
        for piece in pieces.dropFirst() {
            guard let parameter = parseParameter(piece) else { return nil }
            parameters.append(parameter)
        }
        return WebSocketExtensionOffer(name: string(name), parameters: parameters)
    }

    /// `token [ "=" (token | quoted-string) ]`, whitespace allowed around `=`.
    private static func parseParameter(_ piece: ArraySlice<UInt8>) -> Parameter? {
        guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else {
            let name = trim(piece)
            return isToken(name) ? Parameter(name: string(name)) : nil
        }
        let name = trim(piece[piece.startIndex..<equals])
        let rawValue = trim(piece[(equals + 1)...])
        guard isToken(name) else { return nil }
        if rawValue.first == UInt8(ascii: "\"") {
            // RFC 6455 §9.1: after unescaping, a quoted value MUST still be a token.
            guard let value = unquote(rawValue), isToken(value[...]) else { return nil }
            return Parameter(name: string(name), value: string(value[...]))
        }
        guard isToken(rawValue) else { return nil }
        return Parameter(name: string(name), value: string(rawValue))
    }

    // MARK: - Lexing

    /// Splits on `separator` outside quoted strings (RFC 7230 §3.2.6 quoted-pair aware).
    static func split(_ bytes: ArraySlice<UInt8>, on separator: UInt8) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var inQuotes = false
        var escaped = false
        for i in bytes.indices {
            let byte = bytes[i]
            if inQuotes {
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inQuotes = false }
            } else if byte == UInt8(ascii: "\"") {
                inQuotes = true
            } else if byte == separator {
                parts.append(bytes[start..<i])
                start = i + 1
            }
        }
        parts.append(bytes[start..<bytes.endIndex])
        return parts
    }

    /// Strips optional whitespace (SP / HTAB, RFC 7230 §3.2.3).
    static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
        return slice
    }

    /// Removes the quotes and quoted-pair escapes; nil if the string is not exactly one quoted-string.
    static func unquote(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return nil }
        var out: [UInt8] = []
        var escaped = false
        for byte in bytes.dropFirst().dropLast() {
            if escaped {
                out.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                return nil
            } else {
                out.append(byte)
            }
        }
        return escaped ? nil : out
    }

    /// `1*tchar` (RFC 7230 §3.2.6).
    static func isToken(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter)
    }

    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Token octets are ASCII, so this never needs repair.
    private static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
