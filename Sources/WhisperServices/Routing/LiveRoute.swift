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

    public init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let loop = Int(parts[1]), loop >= 0,
              let connection = UInt64(parts[2])
        else { return nil }
        self.init(node: String(parts[0]), loop: loop, connection: connection)
    }
}
