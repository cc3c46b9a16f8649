import CLinux
import Foundation
import Synchronization
import WhisperOps
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// The assembled server: N event loops, each with its own listeners (SO_REUSEPORT) and
/// Redis connection, sharing one PostgreSQL worker pool and the node's Redis subscriptions. `main` builds one of these; so do
/// the integration tests, in-process.
public final class WhisperServer: Sendable {
    public let config: ServerConfig
    private let shared: ServerShared
    private let group: EventLoopGroup
    private let contexts: [LoopBound<LoopContext>]
    private let subscriptions: NodeSubscriptions
    /// The listeners' TLS settings (nil: plain TCP), reloaded by `reloadTLS`.
    private let tls: TLSContext?
    private let log: Log

    /// Ports actually bound (useful when the configuration asked for port 0).
    public let publicPort: Int
    public let adminPort: Int

    public init(config: ServerConfig, log: Log, metrics: WhisperMetrics) throws {
        self.config = config
        clinux_ignore_sigpipe()
        try Sodium.initialize()
        let serverMetrics = ServerMetrics(metrics)
        let storageLog = WhisperServer.storageLog(log)
        let postgres = config.databaseURL.map {
            PostgresPool(configuration: PostgresConfiguration(url: $0, poolSize: config.postgresPoolSize,
                                                              sessionsPerLoop: config.postgresLoopSessions),
                         log: storageLog)
        }
        let migrator = try postgres.map {
            try Migrator(pool: $0, directory: MigrationsDirectory.locate(explicit: config.migrationsDirectory), log: storageLog)
        }
        let group = try EventLoopGroup(threads: config.threads)
        self.group = group
        group.start()
        let push = try PushSenders.start(settings: config.push, limits: config.limits, metrics: metrics, postgres: postgres,
                                         loop: group.loops[0], log: log)
        let shared = ServerShared(config: config, log: log, metrics: serverMetrics, postgres: postgres, migrator: migrator,
                                  push: push)
        self.shared = shared

        let tls = try config.tls.map { try TLSContext(certificatePath: $0.certificatePath, keyPath: $0.keyPath) }
        self.tls = tls
        self.log = log
        var publicAddress = try SocketAddress(host: config.publicAddress.host, port: Int(config.publicAddress.port))
        var adminAddress = try SocketAddress(host: config.adminAddress.host, port: Int(config.adminAddress.port))
        var contexts: [LoopBound<LoopContext>] = []
        var redisClients: [RedisClient] = []
        // A Redis TLS file that does not load stops start-up here, not in every reconnect.
        _ = try RedisConfiguration(endpoint: config.redis).clientTLS()
        for (index, loop) in group.loops.enumerated() {
            let (context, redis) = try WhisperServer.onLoop(loop) { () -> (LoopBound<LoopContext>, RedisClient) in
                let redis = RedisClient(configuration: RedisConfiguration(endpoint: config.redis), loop: loop, log: storageLog)
                redis.start()
                return (LoopBound(LoopContext(loop: loop, index: index, shared: shared, redis: redis), loop: loop), redis)
            }
            contexts.append(context)
            redisClients.append(redis)
        }
        let subscriber = RedisSubscriber(configuration: RedisConfiguration(endpoint: config.redis),
                                         loop: group.loops[0], mapFrom: redisClients.first, log: storageLog)
        // Before any listener accepts: the first scrape already has every family.
        metrics.registry.register(collector: StorageReconnects(redis: redisClients, subscriber: subscriber, postgres: postgres))
        // The first loop binds first, so that a requested port 0 becomes one concrete port
        // that the other loops then share through SO_REUSEPORT.
        for context in contexts {
            let (publicBound, adminBound) = try WhisperServer.onLoop(context.loop) { () throws -> (Int, Int) in
                try context.value.start(publicAddress: publicAddress, adminAddress: adminAddress, tls: tls)
                return (context.value.boundPort(.public) ?? 0, context.value.boundPort(.admin) ?? 0)
            }
            publicAddress = try SocketAddress(host: config.publicAddress.host, port: publicBound)
            adminAddress = try SocketAddress(host: config.adminAddress.host, port: adminBound)
        }
        self.contexts = contexts
        shared.deliveryHub.attach(contexts)
        subscriptions = NodeSubscriptions(subscriber: subscriber,
                                          channels: NodeSubscriptions.channels(shared: shared, contexts: contexts), log: log,
                                          onResubscribed: NodeSubscriptions.revalidateSessions(contexts: contexts))
        subscriptions.start()
        self.publicPort = publicAddress.port
        self.adminPort = adminAddress.port
        log.info("listening", ["listener": "public", "port": .int(publicPort), "tls": .bool(tls != nil)])
        log.info("listening", ["listener": "admin", "port": .int(adminPort), "tls": .bool(tls != nil)])
    }

    /// SIGHUP (docs/operations.md "TLS"): reads the certificate and key files again. New
    /// connections get the new certificate; established ones are not touched. A file that does
    /// not load leaves the current certificate in place (`tls_reload_failed`).
    public func reloadTLS() {
        guard let tls else { return log.info("tls_reload_skipped", ["reason": "TLS is not configured"]) }
        do {
            try tls.reload()
            log.info("tls_reloaded", ["certificate": .string(tls.certificatePath)])
        } catch {
            log.error("tls_reload_failed", ["reason": .string(error.description)])
        }
    }

    /// Applies pending migrations (under the advisory lock); used by `migrate` and by
    /// `serve` when `WHISPER_MIGRATE_ON_START` is set.
    public func migrate() async throws -> Int {
        guard let migrator = shared.migrator else { throw ServerStartError.noDatabase }
        return try await migrator.migrate().count
    }

    /// `whisper-server migrate`: applies pending migrations without starting any loop.
    public static func migrate(databaseURL: String, migrationsDirectory: String?, log: Log) async throws -> Int {
        let pool = PostgresPool(url: databaseURL, size: 1, log: storageLog(log))
        defer { pool.shutdown() }
        let directory = MigrationsDirectory.locate(explicit: migrationsDirectory)
        return try await Migrator(pool: pool, directory: directory, log: storageLog(log)).migrate().count
    }

    static func storageLog(_ log: Log) -> StorageLog {
        { level, message in
            switch level {
            case .debug: log.debug("storage", ["message": .string(message)])
            case .info: log.info("storage", ["message": .string(message)])
            case .warning: log.warn("storage", ["message": .string(message)])
            case .error: log.error("storage", ["message": .string(message)])
            }
        }
    }

    /// SIGTERM (docs/operations.md "Rolling restarts"): `/ready` turns 503 at once; after the
    /// grace, stop accepting and close WebSockets with 1001 spread over the window, each once its
    /// in-flight requests are answered; wait (the window plus the drain timeout at most) for every
    /// connection to finish and its route to be released, stop.
    public func drain() async {
        let limits = shared.limits
        shared.beginDrain()
        shared.log.info("drain_grace", ["seconds": .int(limits.drainGraceSeconds)])
        try? await Task.sleep(nanoseconds: UInt64(limits.drainGraceSeconds) * 1_000_000_000)
        shared.beginClosing()
        shared.log.info("drain_closing", ["windowSeconds": .int(limits.drainWindowSeconds)])
        for context in contexts { context.loop.execute { context.value.drain() } }
        let deadline = Date().addingTimeInterval(Double(limits.drainWindowSeconds + config.drainTimeoutSeconds))
        await waitForOutstandingWork(until: deadline)
        for context in contexts { context.loop.execute { context.value.closeAll() } }
        // The routes of the sockets closed just now are released before Redis is let go.
        await waitForOutstandingWork(until: Date().addingTimeInterval(1))
        // Pushes still queued (or waiting for a retry) get the rest of the same deadline.
        if let push = shared.push {
            let left = await push.drain(until: deadline)
            if left > 0 { log.warn("push_drain_incomplete", ["left": .int(left)]) }
        }
        shutdown()
    }

    public func shutdown() {
        subscriptions.close()
        shared.push?.stop()
        // Before the loops stop: each loop closes its own PostgreSQL session.
        shared.postgres?.shutdown()
        group.shutdown()
    }

    private func waitForOutstandingWork(until deadline: Date) async {
        while Date() < deadline, await outstandingWork() > 0 {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    private func outstandingWork() async -> Int {
        var total = 0
        for context in contexts {
            total += await withCheckedContinuation { continuation in
                context.loop.execute { continuation.resume(returning: context.value.outstandingWork) }
            }
        }
        return total
    }

    /// Runs `body` on `loop` and waits for it, from a thread that is not a loop thread.
    private static func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping () throws -> T) throws -> T {
        let box = Mutex<Result<T, Error>?>(nil)
        let semaphore = DispatchSemaphore(value: 0)
        let work = LoopBound(body, loop: loop)
        loop.execute {
            let result = Result { try work.value() }
            box.withLock { $0 = result }
            semaphore.signal()
        }
        semaphore.wait()
        guard let result = box.withLock({ $0 }) else { preconditionFailure("loop task did not run") }
        return try result.get()
    }
}

public enum ServerStartError: Error, CustomStringConvertible {
    case noDatabase
    public var description: String { "WHISPER_DATABASE_URL: required" }
}
