import WhisperProtocol

/// The seed of an identity at rest (`identity.json`): the mnemonic's 16 bytes of entropy in a
/// secretbox under a key stretched from the user's passphrase with Argon2id (libsodium
/// `crypto_pwhash`, interactive limits unless given). The words are never written in clear.
///
///     {"version":1,"kdf":"argon2id13","opsLimit":2,"memLimit":67108864,
///      "salt":"base64(16)","nonce":"base64(24)","sealedEntropy":"base64(16+16)"}
public struct LockedIdentity: Sendable {
    static let fileName = "identity.json"
    let opsLimit: Int
    let memLimit: Int
    let salt: [UInt8]
    let nonce: [UInt8]
    let sealedEntropy: [UInt8]

    /// Locks `mnemonic` under `passphrase`.
    public init(mnemonic: Mnemonic, passphrase: String, opsLimit: Int? = nil, memLimit: Int? = nil) throws(ClientError) {
        self.opsLimit = opsLimit ?? Libsodium.interactiveOpsLimit
        self.memLimit = memLimit ?? Libsodium.interactiveMemLimit
        salt = Libsodium.randomBytes(Libsodium.passwordSaltBytes)
        nonce = Libsodium.randomBytes(Libsodium.nonceBytes)
        do {
            let key = try Libsodium.passwordKey(password: Array(passphrase.utf8), salt: salt, opsLimit: self.opsLimit,
                                                memLimit: self.memLimit)
            sealedEntropy = try Libsodium.secretbox(mnemonic.entropy, nonce: nonce, key: key)
        } catch {
            throw .storage("cannot lock the identity: \(error)")
        }
    }

    /// The mnemonic, or `.wrongPassphrase`.
    public func unlock(passphrase: String) throws(ClientError) -> Mnemonic {
        do {
            let key = try Libsodium.passwordKey(password: Array(passphrase.utf8), salt: salt, opsLimit: opsLimit, memLimit: memLimit)
            return try Mnemonic(entropy: Libsodium.secretboxOpen(sealedEntropy, nonce: nonce, key: key))
        } catch {
            throw .wrongPassphrase
        }
    }

    public func save(in home: ClientHome) throws(ClientError) {
        var w = JSONWriter()
        w.beginObject()
        w.member("version", Int64(1))
        w.member("kdf", "argon2id13")
        w.member("opsLimit", Int64(opsLimit))
        w.member("memLimit", Int64(memLimit))
        w.member("salt", Base64.encode(salt))
        w.member("nonce", Base64.encode(nonce))
        w.member("sealedEntropy", Base64.encode(sealedEntropy))
        w.endObject()
        try home.write(Self.fileName, w.bytes)
    }

    /// The locked identity in `home`, nil when there is none.
    public static func load(from home: ClientHome) throws(ClientError) -> LockedIdentity? {
        guard let json = try home.readJSON(fileName) else { return nil }
        guard json["version"]?.int64Value == 1, let ops = json["opsLimit"]?.int64Value, let mem = json["memLimit"]?.int64Value,
              let salt = json["salt"]?.stringValue.flatMap(Base64.decode),
              let nonce = json["nonce"]?.stringValue.flatMap(Base64.decode),
              let sealed = json["sealedEntropy"]?.stringValue.flatMap(Base64.decode),
              let opsLimit = Int(exactly: ops), let memLimit = Int(exactly: mem)
        else { throw .storage("\(fileName) is damaged") }
        return LockedIdentity(opsLimit: opsLimit, memLimit: memLimit, salt: salt, nonce: nonce, sealedEntropy: sealed)
    }

    private init(opsLimit: Int, memLimit: Int, salt: [UInt8], nonce: [UInt8], sealedEntropy: [UInt8]) {
        (self.opsLimit, self.memLimit, self.salt, self.nonce, self.sealedEntropy) = (opsLimit, memLimit, salt, nonce, sealedEntropy)
    }
}
