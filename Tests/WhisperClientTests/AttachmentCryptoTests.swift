import Testing
import WhisperProtocol
@testable import WhisperClient

@Suite struct AttachmentCryptoTests {
    @Test func fixedVector_fileCiphertextAndFileKeyBox_areTheRecordedBytes() throws {
        let vectors = try ClientVectors()
        let (alice, bob) = (try vectors.identity("alice").keys, try vectors.identity("bob").keys)
        let vector = try vectors.section("attachment")
        let encrypted = try EncryptedAttachment(encrypting: try vector.hex("fileBytes"), fileKey: try vector.hex("fileKey"),
                                                fileNonce: try vector.hex("fileNonce"))
        #expect(Base64.encode(encrypted.ciphertext) == (try vector.string("fileCiphertextBase64")))
        let box = try alice.boxFileKey(encrypted.fileKey, recipientEncPublicKey: bob.encPublicKey, nonce: try vector.hex("keyNonce"))
        #expect(Base64.encode(box.ciphertext) == (try vector.string("fileKeyBoxCiphertextBase64")))
        #expect(box.ciphertext.count == 48)
        // And back, as the recipient does it.
        let fileKey = try bob.openFileKeyBox(box, senderEncPublicKey: alice.encPublicKey)
        #expect(try EncryptedAttachment.decrypt(encrypted.ciphertext, fileKey: fileKey, fileNonce: encrypted.fileNonce)
                    == (try vector.hex("fileBytes")))
    }

    @Test func roundTrip_randomKeyAndNonce_andTamperingIsDetected() throws {
        let file = Array(0..<255) as [UInt8]
        let first = try EncryptedAttachment(encrypting: file), second = try EncryptedAttachment(encrypting: file)
        #expect(first.fileKey.count == 32 && first.fileNonce.count == 24 && first.ciphertext.count == file.count + 16)
        #expect(first.fileKey != second.fileKey && first.fileNonce != second.fileNonce)
        #expect(try EncryptedAttachment.decrypt(first.ciphertext, fileKey: first.fileKey, fileNonce: first.fileNonce) == file)
        var tampered = first.ciphertext
        tampered[40] ^= 1
        #expect(throws: ClientCryptoError.decryptionFailed) {
            try EncryptedAttachment.decrypt(tampered, fileKey: first.fileKey, fileNonce: first.fileNonce)
        }
        #expect(throws: ClientCryptoError.decryptionFailed) {
            try EncryptedAttachment.decrypt(Array(first.ciphertext.prefix(15)), fileKey: first.fileKey, fileNonce: first.fileNonce)
        }
    }

    @Test func boxFileKey_refusesAnythingButA32ByteKey() throws {
        let vectors = try ClientVectors()
        let (alice, bob) = (try vectors.identity("alice").keys, try vectors.identity("bob").keys)
        #expect(throws: ClientCryptoError.wrongLength(what: "file key", expected: 32, got: 16)) {
            try alice.boxFileKey([UInt8](repeating: 1, count: 16), recipientEncPublicKey: bob.encPublicKey)
        }
        // A box holding 16 bytes opens, but is not a file key.
        let short = FileKeyBox(nonce: [UInt8](repeating: 2, count: 24), ciphertext: try Libsodium.box(
            [UInt8](repeating: 1, count: 16), nonce: [UInt8](repeating: 2, count: 24), recipientPublicKey: bob.encPublicKey,
            senderSecretKey: alice.encSecretKey))
        #expect(throws: ClientCryptoError.wrongLength(what: "file key", expected: 32, got: 16)) {
            try bob.openFileKeyBox(short, senderEncPublicKey: alice.encPublicKey)
        }
    }

    @Test func pointerInAFrame_isAcceptedByTheServersParser() throws {
        let vectors = try ClientVectors()
        let (alice, bob) = (try vectors.identity("alice"), try vectors.identity("bob"))
        let encrypted = try EncryptedAttachment(encrypting: Array(repeating: 9, count: 1000))
        let pointer = AttachmentPointerFields(
            objectKey: "att/2026/11/0f8fad5b-d9cb-469f-a165-70867728950e.bin", contentType: "image/jpeg", attachment: encrypted,
            fileKeyBox: try alice.keys.boxFileKey(encrypted.fileKey, recipientEncPublicKey: bob.keys.encPublicKey))
        let envelope = try alice.keys.seal(Array("photo".utf8), kind: .message, id: "3b241101-e2bb-4255-8caf-4136c566a962",
                                           from: alice.id, to: bob.id, timestampMillis: 1, recipientEncPublicKey: bob.keys.encPublicKey)
        let frame = try #require(MessageFrame.encode(envelope, msgType: .image, sessionToken: "t", requestId: "r",
                                                     attachment: pointer))
        let parsed = try SendMessagePayload(parsing: try InboundFrame.parse(frame, limits: .default), limits: .default)
        let attachment = try #require(parsed.attachment)
        #expect(attachment.objectKey == pointer.objectKey && attachment.contentType == "image/jpeg")
        #expect(attachment.ciphertextSize == 1016)
    }
}
