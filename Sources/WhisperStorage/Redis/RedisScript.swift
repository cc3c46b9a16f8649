/// A Lua script, named by the SHA-1 of its source as Redis names it, so `EVALSHA` can be
/// tried first without a round trip to `SCRIPT LOAD`.
public struct RedisScript: Sendable, Hashable {
    public let source: String
    /// Lower-case hex SHA-1 of `source`.
    public let sha1: String

    public init(source: String) {
        self.source = source
        sha1 = SHA1.hex(Array(source.utf8))
    }
}
