/// Where a live recipient's socket is: the node, its event loop and the connection, as the
/// node that holds the socket stored it when the socket came to hold the user's session.
public struct LiveRoute: Sendable, Equatable {
    public let node: String
    public let loop: Int
    public let connection: UInt64

    public init(node: String, loop: Int, connection: UInt64) {
        self.node = node
        self.loop = loop
        self.connection = connection
    }

    /// `node:loop:connection`, the stored form (node ids are hex, so `:` cannot occur in them).
    public var text: String { "\(node):\(loop):\(connection)" }

    /// Parsed with no intermediate array: every accepted message's route passes through here.
    public init?(text: String) {
        let utf8 = text.utf8
        let colon = UInt8(ascii: ":")
        guard let second = utf8.lastIndex(of: colon), let first = utf8[..<second].lastIndex(of: colon),
              first != utf8.startIndex, !utf8[..<first].contains(colon),
              let loop = Int(Substring(text.utf8[utf8.index(after: first)..<second])), loop >= 0,
              let connection = UInt64(Substring(text.utf8[utf8.index(after: second)...]))
        else { return nil }
        self.init(node: String(Substring(utf8[..<first])), loop: loop, connection: connection)
    }
}
