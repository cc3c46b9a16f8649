import WhisperProtocol

/// The `attachment` member of a message payload (spec §6.3, docs/protocol.md "Messaging (1:1)"):
///
///     {"objectKey":"att/…bin","contentType":"image/jpeg","ciphertextSize":123456,
///      "fileNonce":"base64(24)","fileKeyBox":{"nonce":"base64(24)","ciphertext":"base64"}}
///
/// `ciphertextSize` is the size of the uploaded ciphertext (file + 16).
public struct AttachmentPointerFields: Equatable, Sendable {
    public let objectKey: String
    public let contentType: String
    public let ciphertextSize: Int64
    public let fileNonce: [UInt8]
    public let fileKeyBox: FileKeyBox

    public init(objectKey: String, contentType: String, ciphertextSize: Int64, fileNonce: [UInt8], fileKeyBox: FileKeyBox) {
        (self.objectKey, self.contentType, self.ciphertextSize) = (objectKey, contentType, ciphertextSize)
        (self.fileNonce, self.fileKeyBox) = (fileNonce, fileKeyBox)
    }

    /// The pointer for an encrypted upload stored at `objectKey`.
    public init(objectKey: String, contentType: String, attachment: EncryptedAttachment, fileKeyBox: FileKeyBox) {
        self.init(objectKey: objectKey, contentType: contentType, ciphertextSize: Int64(attachment.ciphertext.count),
                  fileNonce: attachment.fileNonce, fileKeyBox: fileKeyBox)
    }

    /// Writes the pointer object as the value of the current key.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("objectKey", objectKey)
        writer.member("contentType", contentType)
        writer.member("ciphertextSize", ciphertextSize)
        writer.member("fileNonce", Base64.encode(fileNonce))
        writer.key(AttachmentPointer.fileKeyBoxKey)
        writer.beginObject()
        writer.member("nonce", Base64.encode(fileKeyBox.nonce))
        writer.member("ciphertext", Base64.encode(fileKeyBox.ciphertext))
        writer.endObject()
        writer.endObject()
    }

    /// A pointer as received (or as kept in the outbox); nil unless every member is well formed.
    public init?(json: JSONValue) {
        guard let objectKey = json["objectKey"]?.stringValue, let contentType = json["contentType"]?.stringValue,
              let size = json["ciphertextSize"]?.int64Value, size > 0,
              let fileNonce = json["fileNonce"]?.stringValue.flatMap(Base64.decode), fileNonce.count == Libsodium.nonceBytes,
              let box = json[AttachmentPointer.fileKeyBoxKey],
              let boxNonce = box["nonce"]?.stringValue.flatMap(Base64.decode), boxNonce.count == Libsodium.nonceBytes,
              let boxCiphertext = box["ciphertext"]?.stringValue.flatMap(Base64.decode)
        else { return nil }
        self.init(objectKey: objectKey, contentType: contentType, ciphertextSize: size, fileNonce: fileNonce,
                  fileKeyBox: FileKeyBox(nonce: boxNonce, ciphertext: boxCiphertext))
    }
}
