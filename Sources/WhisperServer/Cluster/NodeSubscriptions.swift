import WhisperOps
import WhisperRuntime
import WhisperStorage

/// The node's Redis pub/sub: ONE subscriber connection (on the first loop) and one table of
/// channels, each with its handler. It starts the subscriber, subscribes every channel,
/// runs `onResubscribed` after every (re)connect, and closes it at shutdown. A new kind of
/// cross-node notice (membership changes, call events, …) is one more `Channel`.
///
/// Pub/sub is fire-and-forget: notices published while the subscriber is disconnected are
/// lost. That is why every channel's meaning is safe to lose — a routed message is still in
/// the recipient's pending queue — or is re-checked in `onResubscribed` (cached sessions).
final class NodeSubscriptions: Sendable {
    struct Channel: Sendable {
        let name: [UInt8]
        /// What a malformed notice is logged as.
        let malformedEvent: StaticString
        /// Decodes and applies one notice (on the subscriber's loop); false if it was malformed.
        let handle: @Sendable ([UInt8]) -> Bool
    }

    private let subscriber: RedisSubscriber
    private let channels: [Channel]
    private let onResubscribed: @Sendable () -> Void
    private let log: Log

    init(subscriber: RedisSubscriber, channels: [Channel], log: Log, onResubscribed: @escaping @Sendable () -> Void) {
        self.subscriber = subscriber
        self.channels = channels
        self.onResubscribed = onResubscribed
        self.log = log
    }

    func start() {
        let subscriber = subscriber, channels = channels, log = log, onResubscribed = onResubscribed
        subscriber.loop.execute {
            for channel in channels {
                subscriber.subscribe(channel.name) { payload in
                    if !channel.handle(payload) { log.warn(channel.malformedEvent, ["bytes": .int(payload.count)]) }
                }
            }
            subscriber.onReady = onResubscribed
        }
        subscriber.start()
    }

    func close() { subscriber.close() }
}
