import WhisperProtocol
@testable import WhisperClient

extension ClientVectors {
    /// The identity of a vectors section ("alice", "bob") and its Whisper ID.
    func identity(_ name: String) throws -> (keys: ClientIdentity, id: WhisperID) {
        let vector = try section(name)
        let keys = try ClientIdentity(mnemonic: try Mnemonic(whisperPhrase: try vector.string("mnemonic")),
                                      passphrase: try vector.string("passphrase"))
        return (keys, try vector.whisperID("whisperId"))
    }
}
