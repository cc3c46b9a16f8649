import Testing
import WhisperProtocol
@testable import WhisperClient

@Suite struct ContactsBackupCryptoTests {
    @Test func fixedVector_isTheRecordedCiphertext_andOpensBack() throws {
        let vectors = try ClientVectors()
        let alice = try vectors.identity("alice").keys
        let vector = try vectors.section("contactsBackup")
        let backup = try alice.sealContactsBackup(try vector.utf8("contactsJson"), nonce: try vector.hex("nonce"))
        #expect(Base64.encode(backup.ciphertext) == (try vector.string("ciphertextBase64")))
        #expect(try alice.openContactsBackup(backup) == (try vector.utf8("contactsJson")))
    }

    @Test func theSamePhraseOnANewDevice_opensIt_anotherIdentityCannot() throws {
        let vectors = try ClientVectors()
        let phrase = try vectors.section("alice").string("mnemonic")
        let json = Array(#"{"version":1,"exportedAt":1,"contacts":[]}"#.utf8)
        let backup = try ClientIdentity(mnemonic: try Mnemonic(whisperPhrase: phrase)).sealContactsBackup(json)
        #expect(backup.nonce.count == 24 && backup.ciphertext.count == json.count + 16)
        let restored = try ClientIdentity(mnemonic: try Mnemonic(whisperPhrase: phrase.uppercased()))
        #expect(try restored.openContactsBackup(backup) == json)
        #expect(throws: ClientCryptoError.decryptionFailed) { try vectors.identity("bob").keys.openContactsBackup(backup) }
    }
}
