import Testing
@testable import WhisperProtocol

/// `call_*` payload validation (docs/protocol.md "Calls"): shape, the ciphertext cap at N and
/// N+1, and the forwarded frame spliced from the sender's bytes.
@Suite struct CallSignalPayloadTests {
    typealias F = MessageFixture
    static let callId = "6F1C8E5A-3D2B-4C7E-9A10-52B4D7E8F901"

    /// A call frame's payload text with `changes` applied (nil removes a member).
    static func frame(_ kind: CallSignalKind, _ changes: [(String, String?)] = []) -> String {
        var members: [(String, String)] = [
            ("protocolVersion", "1"), ("cryptoVersion", "1"), ("sessionToken", F.quoted(F.token)),
            ("callId", F.quoted(callId)), ("from", F.quoted(F.sender)), ("to", F.quoted(F.recipient)),
            ("timestamp", String(F.timestamp)), ("nonce", F.quoted(F.nonce)), ("ciphertext", F.quoted(F.ciphertext)),
            ("sig", F.quoted(F.signature)),
        ]
        if kind == .initiate { members.insert(("isVideo", "true"), at: 6) }
        for (key, raw) in changes {
            members.removeAll { $0.0 == key }
            if let raw { members.append((key, raw)) }
        }
        let payload = "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        return #"{"type":""# + kind.rawValue + #"","requestId":"r1","payload":"# + payload + "}"
    }

    static func parse(_ kind: CallSignalKind, _ changes: [(String, String?)] = [],
                      limits: Limits = .default) throws -> CallSignalPayload {
        let frame = try InboundFrame.parse(Array(frame(kind, changes).utf8), limits: limits)
        return try CallSignalPayload(parsing: frame, kind: kind, limits: limits)
    }

    static func failure(_ kind: CallSignalKind, _ changes: [(String, String?)]) -> PayloadError? {
        guard let frame = try? InboundFrame.parse(Array(frame(kind, changes).utf8), limits: .default) else { return nil }
        return F.error { () throws(PayloadError) in _ = try CallSignalPayload(parsing: frame, kind: kind, limits: .default) }
    }

    @Test func offer_parses_andIsForwardedWithoutSessionMembers_byteForByte() throws {
        let offer = try Self.parse(.initiate)
        #expect(offer.callIdText == Self.callId && offer.callId.string == Self.callId.lowercased())
        #expect(offer.isVideo == true && offer.ciphertextByteCount == 16)
        let expected = #"{"type":"call_initiate","payload":{"callId":"\#(Self.callId)","from":"\#(F.sender)","#
            + #""to":"\#(F.recipient)","isVideo":true,"timestamp":1763820000000,"nonce":"\#(F.nonce)","#
            + #""ciphertext":"\#(F.ciphertext)","sig":"\#(F.signature)"}}"#
        #expect(String(decoding: offer.forwardedFrame, as: UTF8.self) == expected)
    }

    @Test func signedBytes_useTheFrameTypeAndTheCallIdAsSpelt() throws {
        let answer = try Self.parse(.answer)
        let expected = "v1\ncall_answer\n\(Self.callId)\n\(F.sender)\n\(F.recipient)\n1763820000000\n\(F.nonce)\n\(F.ciphertext)\n"
        #expect(answer.signedBytes() == Array(expected.utf8))
    }

    @Test func ciphertext_mayBeEmpty_andIsCappedAt65536Bytes() throws {
        #expect(try Self.parse(.end, [("ciphertext", #""""#)]).ciphertextByteCount == 0)
        #expect(try Self.parse(.iceCandidate, [("ciphertext", F.quoted(F.base64(count: 65_536)))]).ciphertextByteCount == 65_536)
        #expect(Self.failure(.iceCandidate, [("ciphertext", F.quoted(F.base64(count: 65_537)))])
                    == .tooLarge(field: "ciphertext", maxBytes: 65_536))
    }

    @Test func isVideo_isRequiredOnAnOffer_andRefusedElsewhere() {
        #expect(Self.failure(.initiate, [("isVideo", nil)]) == .missingField("isVideo"))
        #expect(Self.failure(.initiate, [("isVideo", "1")]) == .wrongType(field: "isVideo", expected: .bool))
        #expect(Self.failure(.answer, [("isVideo", "true")]) == .unknownField("isVideo"))
    }

    @Test func badShapes_areInvalidPayloads() {
        #expect(Self.failure(.end, [("to", F.quoted(F.sender))]) == .invalidValue(field: "to"))
        #expect(Self.failure(.end, [("callId", F.quoted("call-1"))]) == .invalidUUID(field: "callId"))
        #expect(Self.failure(.end, [("nonce", F.quoted(F.base64(count: 23)))])
                    == .wrongLength(field: "nonce", expectedBytes: 24, actualBytes: 23))
        #expect(Self.failure(.end, [("sig", nil)]) == .missingField("sig"))
        #expect(Self.failure(.end, [("reason", F.quoted("busy"))]) == .unknownField("reason"))
    }
}
