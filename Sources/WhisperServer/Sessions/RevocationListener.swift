import WhisperOps
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// The node's ear for session revocations: one Redis subscriber (on the first loop) on the
/// `session-revocations` channel. Each notice is handed to every loop through `execute`,
/// and each loop closes its own sockets (`ConnectionRegistry.apply`). So a login on node A
/// closes the old socket on node B, and the old token is dead at once in Redis anyway.
///
/// Pub/sub is fire-and-forget: notices published while the subscriber is disconnected are
/// lost. After every (re)connect each loop therefore re-checks the sessions its sockets
/// hold against Redis and drops the cache of any that died meanwhile.
final class RevocationListener: Sendable {
    private let subscriber: RedisSubscriber
    private let channel: [UInt8]
    private let contexts: [LoopBound<LoopContext>]
    private let log: Log

    init(subscriber: RedisSubscriber, channel: [UInt8], contexts: [LoopBound<LoopContext>], log: Log) {
        self.subscriber = subscriber
        self.channel = channel
        self.contexts = contexts
        self.log = log
    }

    func start() {
        let subscriber = subscriber, channel = channel, contexts = contexts, log = log
        subscriber.loop.execute {
            subscriber.subscribe(channel) { payload in
                guard let notice = RevocationNotice.decode(payload) else {
                    log.warn("revocation_notice_malformed", ["bytes": .int(payload.count)])
                    return
                }
                for context in contexts { context.deliver { $0.applyRevocation(notice) } }
            }
            subscriber.onReady = {
                for context in contexts { context.deliver { $0.revalidateSessions() } }
            }
        }
        subscriber.start()
    }

    func close() { subscriber.close() }
}
