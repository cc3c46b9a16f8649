/// `send_message.attachment` (docs/protocol.md "Messaging (1:1)"): where the encrypted file is and how to open it.
///
///     {"objectKey":"att/2026/01/<uuid>.bin","contentType":"image/jpeg","ciphertextSize":123456,
///      "fileNonce":"base64(24)","fileKeyBox":{"nonce":"base64(24)","ciphertext":"base64(1…256)"}}
///
/// The server forwards the member byte for byte (docs/protocol.md "Messaging (1:1)": validated for shape and size, passed
/// through untouched). `objectKey`, `contentType` and `ciphertextSize` are parsed because they
/// are what authorising downloads and collecting the object once every recipient has it need
/// (attachments are not served yet). Both objects are closed, like the payload. Errors name the member by its path (`attachment.fileKeyBox.nonce`).
public struct AttachmentPointer: Sendable, Equatable {
    public static let key = "attachment"
    public static let allowedKeys: Set<String> = ["objectKey", "contentType", "ciphertextSize", "fileNonce", "fileKeyBox"]
    public static let fileKeyBoxKey = "fileKeyBox"
    public static let fileKeyBoxAllowedKeys: Set<String> = ["nonce", "ciphertext"]
    public static let nonceBytes = 24

    public let objectKey: String
    public let contentType: String
    /// Bytes of the uploaded ciphertext, 1…`Limits.maxAttachmentBytes(contentType:)`.
    public let ciphertextSize: Int64

    public init(objectKey: String, contentType: String, ciphertextSize: Int64) {
        self.objectKey = objectKey
        self.contentType = contentType
        self.ciphertextSize = ciphertextSize
    }

    /// The `attachment` member of `payload`: absent or `null` → `nil`; anything but an object is
    /// `INVALID_PAYLOAD`.
    public static func optional(in payload: some JSONFieldSource, limits: Limits) throws(PayloadError) -> AttachmentPointer? {
        switch payload[key] {
        case nil, .null?:
            return nil
        case let .object(object)?:
            do throws(PayloadError) {
                return try AttachmentPointer(parsing: object, limits: limits)
            } catch {
                throw error.nested(in: key + ".")
            }
        case .some:
            throw .wrongType(field: key, expected: .object)
        }
    }

    /// Validates the attachment object itself; errors name fields relative to it (`objectKey`).
    public init(parsing object: JSONObject, limits: Limits) throws(PayloadError) {
        try object.rejectUnknownKeys(allowed: Self.allowedKeys)
        objectKey = try Self.requireText("objectKey", in: object, maxBytes: limits.maxAttachmentObjectKeyBytes)
        contentType = try Self.requireText("contentType", in: object, maxBytes: limits.maxAttachmentContentTypeBytes)
        let size = try object.requireInt64("ciphertextSize")
        // The cap depends on the kind of content (docs/protocol.md "Limits"); an empty upload is no attachment.
        guard size >= 1, size <= Int64(limits.maxAttachmentBytes(contentType: contentType)) else {
            throw .outOfRange(field: "ciphertextSize")
        }
        ciphertextSize = size
        _ = try object.requireBase64("fileNonce", exactByteCount: Self.nonceBytes)
        do throws(PayloadError) {
            let box = try object.requireObject(Self.fileKeyBoxKey)
            try box.rejectUnknownKeys(allowed: Self.fileKeyBoxAllowedKeys)
            _ = try box.requireBase64("nonce", exactByteCount: Self.nonceBytes)
            let boxed = try box.requireBase64Length("ciphertext", maxByteCount: limits.maxFileKeyBoxCiphertextBytes)
            guard boxed >= 1 else { throw PayloadError.invalidValue(field: "ciphertext") }
        } catch {
            // `missingField`/`wrongType` of fileKeyBox itself already name it; nest only its members.
            switch error {
            case .missingField(Self.fileKeyBoxKey), .wrongType(field: Self.fileKeyBoxKey, expected: _): throw error
            default: throw error.nested(in: Self.fileKeyBoxKey + ".")
            }
        }
    }

    /// A required string of 1…`maxBytes` UTF-8 bytes: empty → `invalidValue`, longer → `tooLarge`.
    static func requireText(_ key: String, in object: JSONObject, maxBytes: Int) throws(PayloadError) -> String {
        let text = try object.requireString(key)
        let count = text.utf8.count
        guard count >= 1 else { throw .invalidValue(field: key) }
        guard count <= maxBytes else { throw .tooLarge(field: key, maxBytes: maxBytes) }
        return text
    }
}
