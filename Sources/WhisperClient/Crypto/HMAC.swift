internal import CSodium

/// HMAC-SHA-256 and HMAC-SHA-512 (RFC 2104) on libsodium's `crypto_auth_hmacsha*_init/update/final`,
/// which take keys of any length. A keyed state is a value: PBKDF2 keys it once and copies it for
/// each of its 2,048 rounds instead of re-hashing the password every time.
struct HMAC<State: HMACState> {
    static var outputBytes: Int { State.outputBytes }
    private let keyed: State

    init(key: [UInt8]) {
        Libsodium.prepare()
        var state = State()
        Libsodium.withNonNullPointer(key) { pointer, count in state.start(key: pointer, count: count) }
        keyed = state
    }

    func mac(_ parts: [UInt8]...) -> [UInt8] {
        var state = keyed
        for part in parts {
            Libsodium.withNonNullPointer(part) { pointer, count in state.absorb(pointer, count: count) }
        }
        return Libsodium.output(State.outputBytes) { out in state.finish(into: out) }
    }
}

typealias HMACSHA256 = HMAC<crypto_auth_hmacsha256_state>
typealias HMACSHA512 = HMAC<crypto_auth_hmacsha512_state>

/// One libsodium HMAC state type and its three calls.
protocol HMACState {
    static var outputBytes: Int { get }
    init()
    mutating func start(key: UnsafePointer<UInt8>, count: Int)
    mutating func absorb(_ bytes: UnsafePointer<UInt8>, count: Int)
    mutating func finish(into out: UnsafeMutablePointer<UInt8>)
}

extension crypto_auth_hmacsha256_state: HMACState {
    static var outputBytes: Int { Int(crypto_auth_hmacsha256_BYTES) }
    mutating func start(key: UnsafePointer<UInt8>, count: Int) { _ = crypto_auth_hmacsha256_init(&self, key, count) }
    mutating func absorb(_ bytes: UnsafePointer<UInt8>, count: Int) { _ = crypto_auth_hmacsha256_update(&self, bytes, UInt64(count)) }
    mutating func finish(into out: UnsafeMutablePointer<UInt8>) { _ = crypto_auth_hmacsha256_final(&self, out) }
}

extension crypto_auth_hmacsha512_state: HMACState {
    static var outputBytes: Int { Int(crypto_auth_hmacsha512_BYTES) }
    mutating func start(key: UnsafePointer<UInt8>, count: Int) { _ = crypto_auth_hmacsha512_init(&self, key, count) }
    mutating func absorb(_ bytes: UnsafePointer<UInt8>, count: Int) { _ = crypto_auth_hmacsha512_update(&self, bytes, UInt64(count)) }
    mutating func finish(into out: UnsafeMutablePointer<UInt8>) { _ = crypto_auth_hmacsha512_final(&self, out) }
}
