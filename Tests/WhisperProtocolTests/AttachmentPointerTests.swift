import Testing
@testable import WhisperProtocol

@Suite struct AttachmentPointerTests {
    typealias F = MessageFixture
    static let nonce = MessageFixture.base64(count: 24)
    static let validText = #"{"objectKey":"att/2026/01/0f8fad5b-d9cb-469f-a165-70867728950e.bin","contentType":"image/jpeg","#
        + #""ciphertextSize":123456,"fileNonce":"\#(nonce)","fileKeyBox":{"nonce":"\#(nonce)","ciphertext":"\#(MessageFixture.base64(count: 48))"}}"#

    static func valid() throws -> JSONObject { try JSONParser.parseObject(utf8Bytes(validText)) }

    /// `valid()` with `path` (one or two keys deep) set to `value`, or removed for `nil`.
    static func with(_ path: [String], _ value: JSONValue?) throws -> JSONObject {
        var object = try valid()
        if path.count == 2, case var .object(inner)? = object[path[0]] {
            inner[path[1]] = value
            object[path[0]] = .object(inner)
        } else {
            object[path[0]] = value
        }
        return object
    }

    static func error(_ object: JSONObject, limits: Limits = .default) -> PayloadError? {
        F.error { () throws(PayloadError) in _ = try AttachmentPointer.optional(in: ["attachment": .object(object)] as JSONObject, limits: limits) }
    }

    @Test func validPointer_parses_keepingWhatTheServerRecords() throws {
        let parsed = try AttachmentPointer.optional(in: ["attachment": .object(try Self.valid())] as JSONObject, limits: .default)
        #expect(parsed == AttachmentPointer(objectKey: "att/2026/01/0f8fad5b-d9cb-469f-a165-70867728950e.bin",
                                            contentType: "image/jpeg", ciphertextSize: 123_456))
    }

    @Test func absentOrNull_isNoAttachment() throws {
        #expect(try AttachmentPointer.optional(in: [:] as JSONObject, limits: .default) == nil)
        #expect(try AttachmentPointer.optional(in: ["attachment": .null] as JSONObject, limits: .default) == nil)
    }

    @Test(arguments: [
        (["objectKey"], 512),
        (["contentType"], 255),
    ] as [([String], Int)])
    func textMembers_atTheLimitAreAccepted_andOneByteMoreIsNot(_ path: [String], _ limit: Int) throws {
        // Multi-byte characters count by UTF-8 bytes: "é" is two.
        let atLimit = String(repeating: "é", count: limit / 2) + String(repeating: "a", count: limit % 2)
        #expect(Self.error(try Self.with(path, .string(atLimit))) == nil)
        #expect(Self.error(try Self.with(path, .string(atLimit + "a"))) == .tooLarge(field: "attachment." + path[0], maxBytes: limit))
        #expect(Self.error(try Self.with(path, "")) == .invalidValue(field: "attachment." + path[0]))
    }

    @Test(arguments: [
        ("image/png", 15_000_000), ("audio/aac", 25_000_000), ("application/pdf", 50_000_000), ("video/mp4", 50_000_000),
    ])
    func ciphertextSize_isCappedByContentType_atNAndNPlusOne(_ contentType: String, _ cap: Int64) throws {
        var object = try Self.with(["contentType"], .string(contentType))
        object["ciphertextSize"] = .int(cap)
        #expect(Self.error(object) == nil)
        object["ciphertextSize"] = .int(cap + 1)
        #expect(Self.error(object) == .outOfRange(field: "attachment.ciphertextSize"))
    }

    @Test func ciphertextSize_mustBeAtLeastOne() throws {
        #expect(Self.error(try Self.with(["ciphertextSize"], 1)) == nil)
        #expect(Self.error(try Self.with(["ciphertextSize"], 0)) == .outOfRange(field: "attachment.ciphertextSize"))
        #expect(Self.error(try Self.with(["ciphertextSize"], .int(Int64.min))) == .outOfRange(field: "attachment.ciphertextSize"))
    }

    @Test func fileKeyBoxCiphertext_atTheLimitIsAccepted_andOneByteMoreIsNot() throws {
        let path = ["fileKeyBox", "ciphertext"]
        #expect(Self.error(try Self.with(path, .string(F.base64(count: 256)))) == nil)
        #expect(Self.error(try Self.with(path, .string(F.base64(count: 257))))
                    == .tooLarge(field: "attachment.fileKeyBox.ciphertext", maxBytes: 256))
        #expect(Self.error(try Self.with(path, .string(F.base64(count: 1)))) == nil)
        #expect(Self.error(try Self.with(path, "")) == .invalidValue(field: "attachment.fileKeyBox.ciphertext"))
    }

    @Test(arguments: [
        (["extra"], JSONValue.int(1), PayloadError.unknownField("attachment.extra")),
        (["objectKey"], nil, .missingField("attachment.objectKey")),
        (["objectKey"], .int(1), .wrongType(field: "attachment.objectKey", expected: .string)),
        (["contentType"], nil, .missingField("attachment.contentType")),
        (["ciphertextSize"], "123", .wrongType(field: "attachment.ciphertextSize", expected: .int)),
        (["ciphertextSize"], .double(1.5), .wrongType(field: "attachment.ciphertextSize", expected: .int)),
        (["fileNonce"], .string(MessageFixture.base64(count: 23)),
         .wrongLength(field: "attachment.fileNonce", expectedBytes: 24, actualBytes: 23)),
        (["fileNonce"], "****", .invalidBase64(field: "attachment.fileNonce")),
        (["fileKeyBox"], nil, .missingField("attachment.fileKeyBox")),
        (["fileKeyBox"], "box", .wrongType(field: "attachment.fileKeyBox", expected: .object)),
        (["fileKeyBox", "extra"], .int(1), .unknownField("attachment.fileKeyBox.extra")),
        (["fileKeyBox", "nonce"], nil, .missingField("attachment.fileKeyBox.nonce")),
        (["fileKeyBox", "nonce"], .string(MessageFixture.base64(count: 25)),
         .wrongLength(field: "attachment.fileKeyBox.nonce", expectedBytes: 24, actualBytes: 25)),
        (["fileKeyBox", "ciphertext"], .array([]), .wrongType(field: "attachment.fileKeyBox.ciphertext", expected: .string)),
    ] as [([String], JSONValue?, PayloadError)])
    func invalidMember_isRejected(_ path: [String], _ value: JSONValue?, _ expected: PayloadError) throws {
        #expect(Self.error(try Self.with(path, value)) == expected)
    }

    @Test func nestedErrors_keepEveryAssociatedValue() {
        #expect(PayloadError.wrongLength(field: "n", expectedBytes: 24, actualBytes: 3).nested(in: "a.")
                    == .wrongLength(field: "a.n", expectedBytes: 24, actualBytes: 3))
        #expect(PayloadError.unsupportedVersion(field: "v", expected: 1).nested(in: "a.") == .unsupportedVersion(field: "a.v", expected: 1))
        #expect(PayloadError.invalidGroupID(field: "g").nested(in: "a.") == .invalidGroupID(field: "a.g"))
    }
}
