/// `send_message.reactions` (docs/protocol.md "Messaging (1:1)"): `{"👍": ["WSP-…", …], …}`, passed through untouched
/// (docs/protocol.md "Messaging (1:1)") after a shape and size check, so a relay cannot be used to ship arbitrary blobs
/// in a member nobody encrypts:
///
/// - absent or `null`: no reactions;
/// - otherwise an object of at most `Limits.maxReactionKeys` members (`outOfRange`);
/// - each key 1…`Limits.maxReactionKeyBytes` UTF-8 bytes (`invalidValue`);
/// - each value an array (`wrongType`) of at most `Limits.maxGroupMembers` (`outOfRange`) valid
///   Whisper IDs (`wrongType` / `invalidWhisperID`).
///
/// Every error names the field `reactions`; peer-chosen keys are not echoed.
public enum MessageReactions {
    public static let key = "reactions"

    /// Validates the `reactions` member of `payload`; returns whether it is present and not `null`.
    @discardableResult
    public static func validateOptional(in payload: some JSONFieldSource, limits: Limits) throws(PayloadError) -> Bool {
        switch payload[key] {
        case nil, .null?:
            return false
        case let .object(reactions)?:
            try validate(reactions, limits: limits)
            return true
        case .some:
            throw .wrongType(field: key, expected: .object)
        }
    }

    public static func validate(_ reactions: JSONObject, limits: Limits) throws(PayloadError) {
        guard reactions.count <= limits.maxReactionKeys else { throw .outOfRange(field: key) }
        for member in reactions.members {
            let keyBytes = member.key.utf8.count
            guard keyBytes >= 1, keyBytes <= limits.maxReactionKeyBytes else { throw .invalidValue(field: key) }
            guard case let .array(reactors) = member.value else { throw .wrongType(field: key, expected: .array) }
            guard reactors.count <= limits.maxGroupMembers else { throw .outOfRange(field: key) }
            for reactor in reactors {
                guard case let .string(id) = reactor else { throw .wrongType(field: key, expected: .string) }
                guard WhisperID.isValid(id) else { throw .invalidWhisperID(field: key) }
            }
        }
    }
}
