/// A listen address from configuration: `host:port` or `[ipv6]:port`. The host is kept as text
/// (numeric address or name); resolving and binding are the runtime's job. Port 0 asks the kernel
/// for an ephemeral port (tests).
public struct SocketAddressSpec: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// True when `host` is an IPv6 literal (it was written in brackets).
    public var isIPv6: Bool { host.contains(":") }

    /// Whether the two hosts can receive the same connections: the same host, or either one
    /// a wildcard (`0.0.0.0`, `::`). Ports are not compared.
    public func overlaps(_ other: SocketAddressSpec) -> Bool {
        host == other.host || isWildcard || other.isWildcard
    }

    private var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    /// `host:port`, with IPv6 hosts in brackets, so that it parses back to the same value.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// What `parse` accepts, for error messages.
    static let expectation = "host:port or [IPv6]:port with port 0-65535"

    /// Parses `host:port` / `[v6]:port`; nil for anything else (bare IPv6 without brackets, a
    /// missing or out-of-range port, characters that cannot be in a host).
    public static func parse(_ text: String) -> SocketAddressSpec? {
        let bytes = Array(text.utf8)
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        guard let port = parsePort(bytes[(colon + 1)...], allowZero: true) else { return nil }
        let hostBytes = bytes[..<colon]
        guard let host = parseHost(hostBytes) else { return nil }
        return SocketAddressSpec(host: host, port: port)
    }

    /// Parses decimal port digits (no sign, no spaces). Shared with the Redis URL parser.
    static func parsePort(_ digits: ArraySlice<UInt8>, allowZero: Bool) -> UInt16? {
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(isDigit) else { return nil }
        var value = 0
        for digit in digits { value = value * 10 + Int(digit - UInt8(ascii: "0")) }
        guard value <= 65535, allowZero || value > 0 else { return nil }
        return UInt16(truncatingIfNeeded: value)
    }

    /// A host as written before `:port`: `[v6]` (brackets removed) or a name / IPv4 literal.
    static func parseHost(_ bytes: ArraySlice<UInt8>) -> String? {
        guard let first = bytes.first else { return nil }
        if first == UInt8(ascii: "[") {
            guard bytes.count > 2, bytes.last == UInt8(ascii: "]") else { return nil }
            let inner = bytes.dropFirst().dropLast()
            guard inner.contains(UInt8(ascii: ":")), inner.allSatisfy(isIPv6Byte) else { return nil }
            return String(decoding: inner, as: UTF8.self)
        }
        guard bytes.allSatisfy(isHostNameByte) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isAlphaNumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
    }

    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        isAlphaNumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }

    /// Hex digits, `:`, `.` (embedded IPv4) and `%zone` (interface names are alphanumeric).
    private static func isIPv6Byte(_ byte: UInt8) -> Bool {
        isAlphaNumeric(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "%")
    }
}
