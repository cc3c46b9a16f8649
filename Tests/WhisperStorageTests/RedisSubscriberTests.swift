import Foundation
import Testing
import WhisperRuntime
import WhisperStorage
import WhisperTesting

@Suite("RedisSubscriber against a real server")
struct RedisSubscriberTests {
    @Test func subscriber_receivesPublishedPayloads_byteForByte() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let subscriber = try RedisSubscriber(url: redis.url,
                                             loop: redis.harness.loop, log: TestEnvironment.log)
        defer { subscriber.close() }
        let channel = redis.key("chan")
        let inbox = MessageInbox()
        redis.harness.loop.execute {
            subscriber.subscribe(channel) { inbox.append($0) }
        }
        subscriber.start()
        #expect(await PubSub.waitForReceiver(redis.client, channel: channel, inbox: inbox))

        let payload: [UInt8] = [0, 1, 2, 0, 255, 10]
        #expect(try await redis.client.send([Array("PUBLISH".utf8), Array(channel.utf8), payload]) == .integer(1))
        #expect(await eventually(within: 5) { inbox.contains(payload) })

        // After unsubscribe nobody listens any more.
        redis.harness.loop.execute { subscriber.unsubscribe(channel) }
        #expect(await eventually(within: 5) {
            (try? await redis.client.send(["PUBLISH", channel, "late"])) == .integer(0)
        })
    }

    @Test func subscriptions_madeBeforeAndAfterConnect_bothDeliver() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let subscriber = try RedisSubscriber(url: redis.url,
                                             loop: redis.harness.loop, log: TestEnvironment.log)
        defer { subscriber.close() }
        let early = redis.key("early"), late = redis.key("late")
        let earlyInbox = MessageInbox(), lateInbox = MessageInbox()
        redis.harness.loop.execute { subscriber.subscribe(early) { earlyInbox.append($0) } }
        subscriber.start()
        #expect(await eventually(within: 5) { subscriber.isConnected })
        redis.harness.loop.execute { subscriber.subscribe(late) { lateInbox.append($0) } }
        #expect(await PubSub.waitForReceiver(redis.client, channel: early, inbox: earlyInbox))
        #expect(await PubSub.waitForReceiver(redis.client, channel: late, inbox: lateInbox))
    }
}

enum PubSub {
    /// Publishes probes until the subscriber's handler sees one (a SUBSCRIBE may still be
    /// in flight when the test starts publishing).
    static func waitForReceiver(_ client: RedisClient, channel: String, inbox: MessageInbox,
                                within seconds: Double = 10) async -> Bool {
        let probe = Array("probe-\(UUID().uuidString)".utf8)
        return await eventually(within: seconds, every: 0.1) {
            _ = try? await client.send([Array("PUBLISH".utf8), Array(channel.utf8), probe])
            try? await Task.sleep(nanoseconds: 20_000_000)
            return inbox.contains(probe)
        }
    }
}
