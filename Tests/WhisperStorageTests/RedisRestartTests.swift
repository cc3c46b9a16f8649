import Foundation
import Testing
import WhisperRuntime
import WhisperStorage
import WhisperTesting

@Suite("RedisClient and RedisSubscriber across a server restart")
struct RedisRestartTests {
    @Test(.timeLimit(.minutes(2)))
    func restart_failsFast_thenReconnectsAndResubscribesByItself() async throws {
        try await withPrivateService(.redis) { server in
            let redis = try await RedisFixture.connect(url: server.url)
            defer { redis.close() }
            let client = redis.client
            let subscriber = try RedisSubscriber(url: server.url, loop: redis.harness.loop, log: TestEnvironment.log)
            defer { subscriber.close() }
            let channel = redis.key("wake")
            let inbox = MessageInbox()
            redis.harness.loop.execute { subscriber.subscribe(channel) { inbox.append($0) } }
            subscriber.start()

            #expect(try await client.send(["SET", redis.key("k"), "v"]) == .status("OK"))
            #expect(await PubSub.waitForReceiver(client, channel: channel, inbox: inbox))

            try await server.stop()
            #expect(await eventually(within: 5) { !client.isConnected })
            for _ in 0..<3 {
                let (result, seconds) = await measure { await attempt(client, ["PING"]) }
                #expect(result.failureValue == .disconnected)
                // Failing at once, not after the 5 s command timeout.
                #expect(seconds < 4, "a command during the outage took \(seconds) s")
            }

            try await server.start()
            let (reconnected, seconds) = await measure { await eventually(within: 10) { client.isConnected } }
            #expect(reconnected, "client did not reconnect within 10 s")
            #expect(seconds < 5)
            #expect(try await client.send(["PING"]) == .status("PONG"))
            #expect(client.reconnectCount >= 1)

            #expect(await PubSub.waitForReceiver(client, channel: channel, inbox: inbox))
            let payload = Array("after-restart".utf8)
            _ = try await client.send([Array("PUBLISH".utf8), Array(channel.utf8), payload])
            #expect(await eventually(within: 5) { inbox.contains(payload) })
            #expect(subscriber.reconnectCount >= 1)
        }
    }
}
