import Foundation
import Testing
import WhisperOps
import WhisperProtocol
import WhisperServices
import WhisperStorage
import WhisperStores
import WhisperTesting

/// A cluster-mode `RedisClient` on a loop of its own against the real 3-primary + 3-replica
/// Redis Cluster scripts/test starts (`WHISPER_TEST_REDIS_CLUSTER_URL`), and the keys of this
/// test (a prefix of its own): what the stores' cluster tests build their store on.
final class ClusterStores: @unchecked Sendable {
    let loop: TestLoop
    let redis: RedisClient
    let keys: RedisKeys
    let limits = Limits()
    /// The node id the stores are told they run on.
    let node = "thisnode"

    /// `standalone`: the suite's standalone Redis instead (`WHISPER_TEST_REDIS_URL`), for a
    /// test that shows one behaviour in both modes.
    init(standalone: Bool = false) async throws {
        loop = try TestLoop()
        let configuration = standalone ? RedisConfiguration(endpoint: try RedisEndpoint.parse(TestEnvironment.redisURL))
                                       : try Self.configuration()
        redis = RedisClient(configuration: configuration, loop: loop.loop, log: TestEnvironment.log)
        redis.start()
        keys = RedisKeys(prefix: TestEnvironment.uniqueName("steps") + ":")
        let redis = redis
        guard await eventually(within: 10, { redis.isConnected }) else {
            close()
            throw TestSocket.Failure.io("the test Redis Cluster did not connect within 10 s")
        }
    }

    static func configuration() throws -> RedisConfiguration {
        guard let url = ProcessInfo.processInfo.environment["WHISPER_TEST_REDIS_CLUSTER_URL"], !url.isEmpty else {
            throw TestSocket.Failure.io("WHISPER_TEST_REDIS_CLUSTER_URL is not set: run through scripts/test")
        }
        var endpoint = try RedisEndpoint.parse(url)
        endpoint.cluster = true
        return RedisConfiguration(endpoint: endpoint)
    }

    func close() {
        redis.close()
        loop.shutdown()
    }

    @discardableResult
    func command(_ arguments: [Any]) async throws -> RedisValue {
        let encoded: [[UInt8]] = arguments.map { ($0 as? [UInt8]) ?? Array("\($0)".utf8) }
        let result: Result<RedisValue, StoreError> = await loop.run { [redis] done in
            redis.send(encoded) { done(RedisReplies.value($0)) }
        }
        return try result.get()
    }

    /// Sharded subscriptions on the cluster (the nodes' own delivery channels).
    func subscribe(_ channel: [UInt8]) async throws -> ClusterInbox {
        let subscriber = RedisSubscriber(configuration: try Self.configuration(), loop: loop.loop)
        let inbox = ClusterInbox(subscriber: subscriber)
        await loop.run { (done: @escaping @Sendable (Bool) -> Void) in
            subscriber.subscribe(channel) { inbox.received($0) }
            done(true)
        }
        subscriber.start()
        let redis = redis
        // Subscribed once a publish on the channel reaches somebody.
        _ = await eventually(within: 10) {
            let reply: Result<RedisValue, RedisError> = await self.loop.run { done in
                redis.send([Array("SPUBLISH".utf8), channel, Array("probe".utf8)]) { done($0) }
            }
            return (try? reply.get())?.integer ?? 0 > 0
        }
        inbox.drop(Array("probe".utf8))
        return inbox
    }
}

/// What a sharded subscription received.
final class ClusterInbox: @unchecked Sendable {
    private let subscriber: RedisSubscriber
    private let lock = NSLock()
    private var notices: [[UInt8]] = []

    init(subscriber: RedisSubscriber) { self.subscriber = subscriber }

    func received(_ payload: [UInt8]) { lock.withLock { notices.append(payload) } }
    func drop(_ payload: [UInt8]) { lock.withLock { notices.removeAll { $0 == payload } } }

    /// The next notice that is not a probe, within 5 s.
    func next() async -> [UInt8]? {
        for _ in 0..<500 {
            if let notice = lock.withLock({ notices.first { $0 != Array("probe".utf8) } }) { return notice }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return nil
    }

    func close() { subscriber.close() }
}

extension TestLoop {
    /// Runs a store call on the loop and returns its outcome (throwing its error).
    func result<T: Sendable>(_ body: @escaping @Sendable (_ done: @escaping StoreCompletion<T>) -> Void) async throws -> T {
        let result: Result<T, StoreError> = await run { done in body { done($0) } }
        return try result.get()
    }
}

/// A store made on the test's thread and used only on the loop's (`TestLoop.result`).
final class OnLoop<Store>: @unchecked Sendable {
    let store: Store
    init(_ store: Store) { self.store = store }
}
