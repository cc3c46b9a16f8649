/// A configuration secret (admin token, TURN secret, S3 secret key). Printing, interpolating,
/// `dump`-ing or reflecting it yields `<redacted>`; the value is reachable only through the
/// deliberately loud `unredacted` property, so it cannot end up in a log line by accident.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret itself. Use only where the secret is needed (signing, constant-time compare).
    public let unredacted: String

    public init(_ value: String) {
        unredacted = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
