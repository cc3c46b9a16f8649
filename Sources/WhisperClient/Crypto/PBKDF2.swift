/// PBKDF2 with HMAC-SHA-512 (RFC 8018 §5.2), the BIP39 seed function. Built on libsodium's HMAC
/// so the client needs no OpenSSL (which Apple platforms do not ship); checked against the
/// official BIP39 vectors, whose seeds are exactly this with 2,048 rounds.
enum PBKDF2 {
    /// `length` bytes of PBKDF2-HMAC-SHA512(password, salt, rounds). `rounds` ≥ 1, `length` ≥ 0.
    static func sha512(password: [UInt8], salt: [UInt8], rounds: Int, length: Int) -> [UInt8] {
        let prf = HMACSHA512(key: password)
        var derived: [UInt8] = []
        derived.reserveCapacity(length)
        var blockIndex: UInt32 = 1
        while derived.count < length {
            // T_i = U_1 ⊕ … ⊕ U_c,  U_1 = PRF(P, S ‖ INT(i)),  U_j = PRF(P, U_{j-1})
            let indexBytes: [UInt8] = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: blockIndex >> $0) }
            var u = prf.mac(salt, indexBytes)
            var block = u
            for _ in 1..<max(rounds, 1) {
                u = prf.mac(u)
                for position in block.indices { block[position] ^= u[position] }
            }
            derived.append(contentsOf: block.prefix(length - derived.count))
            blockIndex &+= 1
        }
        return derived
    }
}
