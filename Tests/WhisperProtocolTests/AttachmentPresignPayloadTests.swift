import Testing
@testable import WhisperProtocol

/// The body of `POST /attachments/presign`: shape, media type, and the per-kind cap at N and N+1.
@Suite struct AttachmentPresignPayloadTests {
    static func parse(_ text: String) throws(PayloadError) -> AttachmentPresignPayload {
        try AttachmentPresignPayload(body: Array(text.utf8), limits: .default)
    }

    static func body(_ contentType: String, _ size: Int64) -> String {
        #"{"contentType":"\#(contentType)","sizeBytes":\#(size),"purpose":"message_attachment"}"#
    }

    @Test func validBody_parses() throws {
        let payload = try Self.parse(Self.body("image/jpeg", 123_456))
        #expect(payload.contentType == "image/jpeg")
        #expect(payload.sizeBytes == 123_456)
        #expect(payload.purpose == .messageAttachment)
        #expect(try Self.parse(Self.body("text/plain; charset=utf-8", 1)).contentType == "text/plain; charset=utf-8")
    }

    @Test func sizeBytes_isCappedByKind_atNAndNPlusOne() throws {
        for (type, cap) in [("image/png", Int64(15_000_000)), ("audio/ogg", 25_000_000), ("application/pdf", 50_000_000)] {
            #expect(try Self.parse(Self.body(type, cap)).sizeBytes == cap)
            #expect(throws: PayloadError.tooLarge(field: "sizeBytes", maxBytes: Int(cap))) { try Self.parse(Self.body(type, cap + 1)) }
        }
    }

    @Test func sizeBytes_belowOne_isOutOfRange() {
        #expect(throws: PayloadError.outOfRange(field: "sizeBytes")) { try Self.parse(Self.body("image/png", 0)) }
        #expect(throws: PayloadError.outOfRange(field: "sizeBytes")) { try Self.parse(Self.body("image/png", -1)) }
    }

    @Test func contentType_mustBeATypeSlashSubtypeOfVisibleASCII() {
        for bad in ["jpeg", "image/", "/jpeg", "image/jp eg", " image/jpeg", "image/jpeg ", "a/b/c", "image/jpég", ""] {
            #expect(throws: PayloadError.invalidValue(field: "contentType"), "\(bad)") { try Self.parse(Self.body(bad, 1)) }
        }
        let long = "image/" + String(repeating: "x", count: 250)
        #expect(throws: PayloadError.tooLarge(field: "contentType", maxBytes: 255)) { try Self.parse(Self.body(long, 1)) }
    }

    @Test func purposeAndMembers_areClosed() {
        #expect(throws: PayloadError.invalidValue(field: "purpose")) {
            try Self.parse(#"{"contentType":"image/png","sizeBytes":1,"purpose":"avatar"}"#)
        }
        #expect(throws: PayloadError.unknownField("x")) {
            try Self.parse(#"{"contentType":"image/png","sizeBytes":1,"purpose":"message_attachment","x":1}"#)
        }
        #expect(throws: PayloadError.missingField("sizeBytes")) {
            try Self.parse(#"{"contentType":"image/png","purpose":"message_attachment"}"#)
        }
    }
}
