// Nested objects (`attachment`, `attachment.fileKeyBox`) are validated with the same `JSONObject`
// accessors as the payload itself; their errors then name the member by its path, so a client
// reads "attachment.fileNonce must decode to 24 bytes" rather than a bare "fileNonce".

extension PayloadError {
    /// The same error with `prefix` put before the field name (`"attachment."` + `"fileNonce"`).
    public func nested(in prefix: String) -> PayloadError {
        switch self {
        case let .missingField(field):
            return .missingField(prefix + field)
        case let .wrongType(field, expected):
            return .wrongType(field: prefix + field, expected: expected)
        case let .invalidBase64(field):
            return .invalidBase64(field: prefix + field)
        case let .wrongLength(field, expectedBytes, actualBytes):
            return .wrongLength(field: prefix + field, expectedBytes: expectedBytes, actualBytes: actualBytes)
        case let .tooLarge(field, maxBytes):
            return .tooLarge(field: prefix + field, maxBytes: maxBytes)
        case let .tooManyItems(field, max):
            return .tooManyItems(field: prefix + field, max: max)
        case let .invalidUUID(field):
            return .invalidUUID(field: prefix + field)
        case let .invalidWhisperID(field):
            return .invalidWhisperID(field: prefix + field)
        case let .invalidGroupID(field):
            return .invalidGroupID(field: prefix + field)
        case let .unsupportedVersion(field, expected):
            return .unsupportedVersion(field: prefix + field, expected: expected)
        case let .outOfRange(field):
            return .outOfRange(field: prefix + field)
        case let .unknownField(field):
            return .unknownField(prefix + field)
        case let .invalidValue(field):
            return .invalidValue(field: prefix + field)
        }
    }
}
