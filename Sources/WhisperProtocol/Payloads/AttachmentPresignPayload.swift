/// The body of `POST /attachments/presign` (docs/protocol.md "Attachments"):
///
///     {"contentType":"image/jpeg","sizeBytes":123456,"purpose":"message_attachment"}
///
/// `contentType` becomes a signed `Content-Type` header of the upload, so it must be a
/// `type/subtype` of visible ASCII (RFC 6838 §4.2 characters, parameters allowed after `;`).
/// `sizeBytes` is the exact ciphertext size, signed as `Content-Length`: 1 at least, at most the
/// cap of its kind (`Limits.maxAttachmentBytes(contentType:)`) — beyond it `tooLarge` (413).
public struct AttachmentPresignPayload: Sendable, Equatable {
    /// What the object is for; only message attachments exist so far.
    public enum Purpose: String, Sendable, CaseIterable {
        case messageAttachment = "message_attachment"
    }

    public static let allowedKeys: Set<String> = ["contentType", "sizeBytes", "purpose"]
    /// Three short members.
    public static func maxBodyBytes(limits: Limits) -> Int { limits.maxAttachmentContentTypeBytes * 6 + 256 }

    public let contentType: String
    public let sizeBytes: Int64
    public let purpose: Purpose

    public init(body: [UInt8], limits: Limits) throws(PayloadError) {
        let payload = try JSONObject(httpBody: body, maxBytes: Self.maxBodyBytes(limits: limits))
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        let contentType = try payload.requireString("contentType")
        guard contentType.utf8.count <= limits.maxAttachmentContentTypeBytes else {
            throw .tooLarge(field: "contentType", maxBytes: limits.maxAttachmentContentTypeBytes)
        }
        guard Self.isMediaType(contentType) else { throw .invalidValue(field: "contentType") }
        self.contentType = contentType
        guard let purpose = Purpose(rawValue: try payload.requireString("purpose")) else {
            throw .invalidValue(field: "purpose")
        }
        self.purpose = purpose
        sizeBytes = try payload.requireInt64("sizeBytes")
        guard sizeBytes >= 1 else { throw .outOfRange(field: "sizeBytes") }
        let cap = limits.maxAttachmentBytes(contentType: contentType)
        guard sizeBytes <= Int64(cap) else { throw .tooLarge(field: "sizeBytes", maxBytes: cap) }
    }

    /// `type/subtype[;params]`: one `/` inside the first part, no spaces or controls anywhere
    /// but single spaces in the parameters (a header value must survive SigV4's trimming as is).
    static func isMediaType(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first != UInt8(ascii: " "), bytes.last != UInt8(ascii: " ") else { return false }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
        let mediaType = bytes.prefix { $0 != UInt8(ascii: ";") }
        let parts = mediaType.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && !$0.contains(UInt8(ascii: " ")) }) else { return false }
        return !text.contains("  ")
    }
}
