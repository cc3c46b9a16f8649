/// wyrand (Wang Yi's 64-bit generator): a few nanoseconds per draw. Used for WebSocket
/// masking keys and message filler, where the only requirement is that values vary (the
/// system generator costs a `getrandom` syscall per call, too much per frame). Never for keys.
public struct FastRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// Seeded from the system generator.
    public init() {
        state = UInt64.random(in: .min ... .max)
    }

    public mutating func next() -> UInt64 {
        state &+= 0xA076_1D64_78BD_642F
        let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }
}
