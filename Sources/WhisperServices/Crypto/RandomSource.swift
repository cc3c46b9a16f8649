import WhisperProtocol

/// Where secrets and identifiers get their randomness. Production uses libsodium; tests
/// inject a scripted source to force, for example, a Whisper ID collision.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}

/// `randombytes_buf`: the OS CSPRNG through libsodium.
public struct SodiumRandom: RandomSource {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] { Sodium.randomBytes(count) }
}

extension RandomSource {
    /// Lower-case hex of `count` random bytes (nonces, correlation ids, node ids).
    public func hex(_ count: Int) -> String { Hex.encode(bytes(count)) }
}

/// Adapts a `RandomSource` to the standard library's generator protocol (for
/// `CanonicalUUID.random(using:)`).
public struct RandomSourceGenerator: RandomNumberGenerator {
    let source: RandomSource

    public init(_ source: RandomSource) { self.source = source }

    public mutating func next() -> UInt64 {
        source.bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
