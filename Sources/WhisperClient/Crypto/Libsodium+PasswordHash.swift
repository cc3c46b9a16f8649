internal import CSodium

extension Libsodium {
    static let passwordSaltBytes = 16

    /// Argon2id (`crypto_pwhash`, ALG_ARGON2ID13) of `password`: a 32-byte key for secretbox.
    static func passwordKey(password: [UInt8], salt: [UInt8], opsLimit: Int, memLimit: Int) throws(ClientCryptoError) -> [UInt8] {
        prepare()
        try check(salt, passwordSaltBytes, "password salt")
        guard opsLimit > 0, memLimit > 0 else { throw .wrongLength(what: "password hash limits", expected: 1, got: 0) }
        var failed = false
        let key = output(keyBytes) { out in
            withNonNullPointer(password) { pw, count in
                failed = crypto_pwhash(out, UInt64(keyBytes), pw, UInt64(count), salt, UInt64(opsLimit), Int(memLimit),
                                       crypto_pwhash_alg_argon2id13()) != 0
            }
        }
        // Only running out of memory fails.
        guard !failed else { throw .decryptionFailed }
        return key
    }

    static var interactiveOpsLimit: Int { Int(crypto_pwhash_opslimit_interactive()) }
    static var interactiveMemLimit: Int { Int(crypto_pwhash_memlimit_interactive()) }
}
