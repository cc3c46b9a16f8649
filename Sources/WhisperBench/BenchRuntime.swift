import CSodium
import WhisperOps
import WhisperRuntime

/// The client side of a run: 1–2 event loops (the runtime's, the same epoll reactor the server
/// uses), the target address and the source addresses. Scenarios put one shard per loop on
/// it; everything a shard owns lives on its loop's thread.
final class BenchRuntime: Sendable {
    let group: EventLoopGroup
    let settings: ClientSettings
    let sources: [SocketAddress]

    init(options: ConnectionOptions) throws(BenchError) {
        guard (1...64).contains(options.threads) else { throw .invalidOption("--threads must be 1…64") }
        guard (0...254).contains(options.sourceAddresses) else { throw .invalidOption("--source-addresses must be 0…254") }
        _ = sodium_init()
        let remote: SocketAddress
        do {
            remote = try SocketAddress(host: options.host, port: options.port)
        } catch {
            throw .invalidOption("--host/--port: \(error.description)")
        }
        var sources: [SocketAddress] = []
        // Extra loopback addresses only make sense towards a loopback server.
        if options.host == "localhost" || options.host.hasPrefix("127.") {
            for i in 0..<options.sourceAddresses {
                if let address = try? SocketAddress(host: "127.0.0.\(i + 1)", port: 0) { sources.append(address) }
            }
        }
        self.sources = sources
        settings = ClientSettings(remote: remote, hostHeader: "\(options.host):\(options.port)", path: options.path,
                                  offerDeflate: options.offerDeflate,
                                  connectTimeoutNanoseconds: MonotonicClock.nanoseconds(options.connectTimeoutSeconds))
        do {
            group = try EventLoopGroup(threads: options.threads)
        } catch {
            throw .system(error)
        }
        group.start()
    }

    var loops: [EventLoop] { group.loops }

    /// Builds one shard per loop, on that loop's thread.
    func makeShards<Shard>(_ factory: @escaping @Sendable (ShardContext) -> Shard) async -> [LoopBound<Shard>] {
        var shards: [LoopBound<Shard>] = []
        for loop in group.loops {
            let settings = self.settings, sources = self.sources
            let seed = UInt64.random(in: .min ... .max)
            let shard = await withCheckedContinuation { (continuation: CheckedContinuation<LoopBound<Shard>, Never>) in
                loop.execute {
                    let context = ShardContext(loop: loop, settings: settings, sources: sources, seed: seed)
                    continuation.resume(returning: LoopBound(factory(context), loop: loop))
                }
            }
            shards.append(shard)
        }
        return shards
    }

    func shutdown() {
        group.shutdown()
    }
}
