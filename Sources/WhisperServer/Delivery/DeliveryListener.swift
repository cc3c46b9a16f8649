import WhisperOps
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// The node's ear for frames routed to its sockets by other nodes: a subscription to
/// `deliver:{nodeId}` on the node's Redis subscriber. Pub/sub is fire-and-forget, which is
/// safe here: a message lost in transit is still in the recipient's pending queue, and the
/// client fetches it (`fetch_pending`) after every (re)connect.
final class DeliveryListener: Sendable {
    private let subscriber: RedisSubscriber
    private let channel: [UInt8]
    private let hub: DeliveryHub
    private let log: Log

    init(subscriber: RedisSubscriber, channel: [UInt8], hub: DeliveryHub, log: Log) {
        self.subscriber = subscriber
        self.channel = channel
        self.hub = hub
        self.log = log
    }

    func start() {
        let subscriber = subscriber, channel = channel, hub = hub, log = log
        subscriber.loop.execute {
            subscriber.subscribe(channel) { payload in
                guard let notice = DeliveryNotice.decode(payload) else {
                    log.warn("delivery_notice_malformed", ["bytes": .int(payload.count)])
                    return
                }
                hub.forward(notice.frame, to: notice.user, at: notice.route, kind: notice.kind,
                            receivedAtMicros: notice.receivedAtMicros)
            }
        }
    }
}
