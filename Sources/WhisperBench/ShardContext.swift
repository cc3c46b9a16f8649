import WhisperWebSocket
import WhisperRuntime

/// What every scenario shard on one loop shares: the loop, the client settings, a cheap random
/// generator, and the rotation over source addresses (so consecutive connections leave from
/// 127.0.0.1, 127.0.0.2, … and no one address runs out of ephemeral ports). Loop thread only.
final class ShardContext {
    let loop: EventLoop
    let settings: ClientSettings
    var random: FastRandom
    private let sources: [SocketAddress]
    private var sourceCursor: Int

    init(loop: EventLoop, settings: ClientSettings, sources: [SocketAddress], seed: UInt64) {
        self.loop = loop
        self.settings = settings
        self.sources = sources
        random = FastRandom(seed: seed)
        // Loops start at different offsets so they do not all pile onto 127.0.0.1 first.
        sourceCursor = loop.index
    }

    /// The next source address, or nil to let the kernel choose.
    func nextSourceAddress() -> SocketAddress? {
        guard !sources.isEmpty else { return nil }
        defer { sourceCursor &+= 1 }
        return sources[sourceCursor % sources.count]
    }

    func newIdentity() -> BenchIdentity {
        BenchIdentity(random: &random, platform: random.next() & 1 == 0 ? "ios" : "android")
    }
}
