/// A group id: `grp-` followed by a UUID (docs/protocol.md "Encodings"). The prefix is lowercase; the UUID part is
/// accepted in any case and normalised to lowercase, like every UUID.
public struct GroupID: Hashable, Sendable, CustomStringConvertible {
    public static let prefix = "grp-"

    /// `grp-` + lowercase UUID.
    public let string: String
    public let uuid: CanonicalUUID

    public init?(_ text: String) {
        guard text.utf8.starts(with: Self.prefix.utf8),
              let uuid = CanonicalUUID(String(decoding: text.utf8.dropFirst(Self.prefix.utf8.count), as: UTF8.self))
        else { return nil }
        self.init(uuid: uuid)
    }

    public init(uuid: CanonicalUUID) {
        self.uuid = uuid
        string = Self.prefix + uuid.string
    }

    public static func random() -> GroupID { GroupID(uuid: .random()) }

    public var description: String { string }
}
