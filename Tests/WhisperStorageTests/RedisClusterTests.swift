import Foundation
import Glibc
import Testing
import WhisperOps
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

/// `RedisClient` in cluster mode against the real 3-primary + 3-replica Redis Cluster scripts/test
/// starts (`WHISPER_TEST_REDIS_CLUSTER_URL`); the failover test kills a node of a cluster of its
/// own. Serialized: the migration test moves a slot of the shared cluster.
@Suite("RedisClient against a real Redis Cluster", .serialized)
struct RedisClusterTests {
    private static let twoKeyScript = RedisScript(source: """
        redis.call('SET', KEYS[1], ARGV[1])
        redis.call('SET', KEYS[2], ARGV[1] .. '!')
        return redis.call('GET', KEYS[2])
        """)

    @Test func slots_matchTheServersClusterKeyslot() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        for key in ["foo", "{user1000}.following", "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", cluster.key("x"), "ümlaut"] {
            let answer = try await cluster.client.send(["CLUSTER", "KEYSLOT", key])
            #expect(answer == .integer(Int64(RedisSlot.of(key))), "\(key)")
        }
    }

    @Test func keysOnAllThreeShards_setGet_andATwoKeyScriptInOneHashTag() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let map = try await cluster.map()
        let tags = cluster.tagsOnEveryPrimary(map)
        #expect(tags.count == 3)
        for (tag, primary) in tags {
            let key = cluster.key(tag)
            #expect(try await cluster.client.send(["SET", key, "value-\(tag)"]) == .status("OK"))
            #expect(try await cluster.client.send(["GET", key]) == .bulk(Array("value-\(tag)".utf8)))
            // Stored on the primary that owns the slot, not anywhere else.
            #expect(try await redisCLI(primary, ["GET", key]) == "value-\(tag)")
            let reply = try await cluster.client.evalScript(Self.twoKeyScript, keys: [Array(cluster.key(tag, "a").utf8),
                                                                                       Array(cluster.key(tag, "b").utf8)],
                                                            arguments: [Array(tag.utf8)])
            #expect(reply == .bulk(Array("\(tag)!".utf8)))
            #expect(try await redisCLI(primary, ["GET", cluster.key(tag, "a")]) == tag)
        }
    }

    @Test func aScriptsFirstCall_onEveryShard_runsBeforeACommandSentAfterIt() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        for (tag, _) in cluster.tagsOnEveryPrimary(try await cluster.map()) {
            let key = cluster.key(tag)
            let read = await firstCallThenSet(cluster.client, on: cluster.harness.loop, key: key, unique: cluster.prefix)
            #expect(try read.get() == .bulk(nil), "\(tag)")
            _ = try await cluster.client.send(["DEL", key])
        }
    }

    @Test func scriptFlushedOnEveryPrimary_theNextCallFallsBackToEVAL_onEachShard() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let script = RedisScript(source: "-- \(cluster.prefix)\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])")
        let tags = cluster.tagsOnEveryPrimary(try await cluster.map())
        for (tag, _) in tags {
            let key = [UInt8](cluster.key(tag).utf8)
            #expect(try await cluster.client.evalScript(script, keys: [key], arguments: [Array("5".utf8)]) == .integer(5))
        }
        // Each connection believes the script loaded; every primary has forgotten it.
        for (_, primary) in tags { #expect(try await redisCLI(primary, ["SCRIPT", "FLUSH"]) == "OK") }
        for (tag, primary) in tags {
            let key = [UInt8](cluster.key(tag).utf8)
            #expect(try await cluster.client.evalScript(script, keys: [key], arguments: [Array("1".utf8)]) == .integer(6), "\(tag)")
            // The EVAL cached it again on that primary.
            #expect(try await redisCLI(primary, ["SCRIPT", "EXISTS", script.sha1]) == "1")
            _ = try await cluster.client.send([Array("DEL".utf8), key])
        }
    }

    @Test func scriptWithKeysInTwoSlots_isRefusedBeforeSending() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let first = cluster.key("one"), second = cluster.key("two")
        try #require(RedisSlot.of(first) != RedisSlot.of(second))
        do {
            _ = try await cluster.client.evalScript(Self.twoKeyScript, keys: [Array(first.utf8), Array(second.utf8)],
                                                    arguments: [Array("x".utf8)])
            Issue.record("a cross-slot script was sent")
        } catch {
            guard case .invalidCommand(let reason) = error else { throw error }
            #expect(reason.hasPrefix("CROSSSLOT"))
        }
        // Nothing ran.
        #expect(try await cluster.client.send(["EXISTS", first]) == .integer(0))
        #expect(try await cluster.client.send(["EXISTS", second]) == .integer(0))
    }

    @Test func pipelinedBurstAcrossShards_keepsEachKeysOrder() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let tags = cluster.tagsOnEveryPrimary(try await cluster.map())
        let keys = tags.flatMap { tag in (0..<10).map { cluster.key(tag.tag, "list\($0)") } }
        let rounds = 50
        let client = cluster.client
        // Every command is issued in one loop iteration: one write per primary.
        let lengths: [String: [Int64]] = await cluster.harness.run { done in
            var seen: [String: [Int64]] = [:]
            var remaining = keys.count * rounds
            for round in 0..<rounds {
                for key in keys {
                    client.send(["RPUSH", key, String(round)]) { result in
                        seen[key, default: []].append((try? result.get().integer) ?? -1)
                        remaining -= 1
                        if remaining == 0 { done(seen) }
                    }
                }
            }
        }
        for key in keys {
            #expect(lengths[key] == Array(1...Int64(rounds)), "replies of \(key)")
            let list = try await client.send(["LRANGE", key, "0", "-1"])
            #expect(list == .array((0..<rounds).map { .bulk(Array(String($0).utf8)) }), "order of \(key)")
        }
    }

    @Test func migratingSlot_asksAreFollowed_thenMovedUpdatesTheMap() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let map = try await cluster.map()
        let present = cluster.key("mig", "present"), absent = cluster.key("mig", "absent")
        let slot = RedisSlot.of(present)
        let source = try #require(map.primary(forSlot: slot))
        let target = try #require(map.primaries.first { $0 != source })
        let sourceID = try await redisCLI(source, ["CLUSTER", "MYID"])
        let targetID = try await redisCLI(target, ["CLUSTER", "MYID"])
        #expect(try await cluster.client.send(["SET", present, "p"]) == .status("OK"))
        let subscriber = RedisSubscriber(configuration: cluster.client.configuration, loop: cluster.harness.loop,
                                         log: TestEnvironment.log)
        defer { subscriber.close() }
        let channel = cluster.key("mig", "events")
        cluster.harness.loop.execute { subscriber.subscribe(channel) { _ in } }
        subscriber.start()
        #expect(await eventually(within: 10) { await receivers(source, channel) == 1 })

        try await redisCLI(target, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])
        try await redisCLI(source, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])
        // A key the source does not have is asked for on the target (ASKING + command).
        let asksBefore = try await errorCount(source, "ASK")
        #expect(try await cluster.client.send(["SET", absent, "a"]) == .status("OK"))
        #expect(try await redisCLI(source, ["GET", absent]).hasPrefix("ASK \(slot) "))
        #expect(try await cluster.client.send(["GET", absent]) == .bulk(Array("a".utf8)))
        #expect(try await errorCount(source, "ASK") >= asksBefore + 2)
        // ASK changed no map: the key still on the source is read there.
        #expect(try await cluster.client.send(["GET", present]) == .bulk(Array("p".utf8)))

        try await redisCLI(source, ["MIGRATE", target.host, String(target.port), "", "0", "5000", "KEYS", present])
        for node in [target, source] + map.primaries.filter({ $0 != source && $0 != target }) {
            try await redisCLI(node, ["CLUSTER", "SETSLOT", String(slot), "NODE", targetID])
        }
        let movedBefore = try await errorCount(source, "MOVED")
        #expect(try await cluster.client.send(["GET", present]) == .bulk(Array("p".utf8)))
        #expect(try await errorCount(source, "MOVED") == movedBefore + 1)
        // The map learnt it: the next command goes straight to the target.
        #expect(try await cluster.client.send(["GET", present]) == .bulk(Array("p".utf8)))
        #expect(try await cluster.client.send(["GET", absent]) == .bulk(Array("a".utf8)))
        #expect(try await errorCount(source, "MOVED") == movedBefore + 1)
        // The subscriber moves its sharded channel to the new owner (the source pushed `sunsubscribe`).
        #expect(await eventually(within: 15) { await receivers(target, channel) == 1 })
    }

    @Test func shardedPubSub_eachChannelOnItsOwnShard_deliversAcrossShards() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let tags = cluster.tagsOnEveryPrimary(try await cluster.map())
        let subscriber = RedisSubscriber(configuration: cluster.client.configuration, loop: cluster.harness.loop,
                                         log: TestEnvironment.log)
        defer { subscriber.close() }
        #expect(subscriber.isSharded && cluster.client.isCluster)
        let inbox = MessageInbox()
        let channels = tags.map { cluster.key($0.tag, "events") }
        cluster.harness.loop.execute {
            for channel in channels { subscriber.subscribe(channel) { inbox.append($0) } }
        }
        subscriber.start()
        #expect(await eventually(within: 10) { subscriber.isConnected })
        for channel in channels {
            // SPUBLISH counts the receivers on the channel's own shard: 1 proves where it subscribed.
            #expect(await eventually(within: 5) {
                (try? await cluster.client.send(["SPUBLISH", channel, "hello \(channel)"])) == .integer(1)
            }, "\(channel)")
            #expect(await eventually(within: 2) { inbox.contains(Array("hello \(channel)".utf8)) })
        }
        // Unsubscribed: nobody on that shard listens any more.
        cluster.harness.loop.execute { subscriber.unsubscribe(channels[0]) }
        #expect(await eventually(within: 5) {
            (try? await cluster.client.send(["SPUBLISH", channels[0], "gone"])) == .integer(0)
        })
    }

    @Test func beforeAnyMap_aCommandFailsFast_withDisconnected() async throws {
        var endpoint = try RedisEndpoint.parse("redis://127.0.0.1:1,127.0.0.1:2/")
        endpoint.cluster = true
        let harness = try TestLoop()
        defer { harness.shutdown() }
        let client = RedisClient(configuration: RedisConfiguration(endpoint: endpoint), loop: harness.loop,
                                 log: TestEnvironment.log)
        client.start()
        defer { client.close() }
        let (result, seconds) = await measure { await attempt(client, ["GET", "k"]) }
        // `.disconnected`, not `.timeout`: it failed at once, not after the 5 s command timeout
        // (the bound only catches a hang; a loaded test resumes late).
        #expect(result == .failure(.disconnected))
        #expect(seconds < 4)
        #expect(!client.isConnected)
    }

    @Test func killedPrimary_itsReplicaTakesOver_andTheClientReachesTheSlotAgain() async throws {
        try await withPrivateCluster { url, directory in
            let cluster = try await RedisClusterFixture.connect(url: url) { $0.clusterRetryWindowMillis = 20_000 }
            defer { cluster.close() }
            let map = try await cluster.map()
            let key = cluster.key("failover")
            let slot = RedisSlot.of(key)
            let primary = try #require(map.primary(forSlot: slot))
            let replica = try #require(await replicaOf(primary))
            #expect(try await cluster.client.send(["SET", key, "kept"]) == .status("OK"))
            let subscriber = RedisSubscriber(configuration: cluster.client.configuration, loop: cluster.harness.loop,
                                             log: TestEnvironment.log)
            defer { subscriber.close() }
            let inbox = MessageInbox()
            let channel = cluster.key("failover", "events")
            cluster.harness.loop.execute { subscriber.subscribe(channel) { inbox.append($0) } }
            subscriber.start()
            #expect(await eventually(within: 10) {
                (try? await cluster.client.send(["SPUBLISH", channel, "before"])) == .integer(1)
            })
            // Replication is asynchronous: let the replica catch up before the primary dies.
            #expect(await eventually(within: 5) {
                await replicationOffset(replica, "slave_repl_offset") >= replicationOffset(primary, "master_repl_offset")
            })

            let pidText = try String(contentsOfFile: "\(directory)/\(primary.port)/redis.pid", encoding: .utf8)
            let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(kill(pid, SIGKILL) == 0)

            // Not retry-safe: the error comes back at once, nothing waits.
            let (plain, plainSeconds) = await measure { await attempt(cluster.client, ["GET", key]) }
            #expect(plainSeconds < 2)
            if case .success(let value) = plain { #expect(value.string != "kept", "read from a killed primary") }

            // Retry-safe: waits for the promotion within the window and then succeeds.
            let call = RedisScriptCall(RedisScript(source: "return redis.call('GET', KEYS[1])"), keys: [Array(key.utf8)],
                                       arguments: [])
            let client = cluster.client
            let (retried, seconds) = await measure {
                await cluster.harness.run { (done: @escaping @Sendable (Result<RedisValue, RedisError>) -> Void) in
                    client.evalScript(call, retryOnce: true, done)
                }
            }
            #expect(retried == .success(.bulk(Array("kept".utf8))))
            #expect(seconds < 20)
            print("failover: the retry-safe command got its answer after \(String(format: "%.1f", seconds)) s")
            #expect(try await cluster.client.send(["GET", key]) == .bulk(Array("kept".utf8)))
            #expect(try await cluster.map().primary(forSlot: slot) == replica)
            #expect(await eventually(within: 5) { cluster.client.isConnected })
            // The subscriber moved its channel to the promoted replica by itself.
            #expect(await eventually(within: 10) {
                (try? await cluster.client.send(["SPUBLISH", channel, "after"])) == .integer(1)
            })
            #expect(await eventually(within: 2) { inbox.contains(Array("after".utf8)) })
        }
    }
}

/// `errorstat_<kind>:count=N` from a node's `INFO errorstats` (0 when it never answered one).
func errorCount(_ node: RedisNodeAddress, _ kind: String) async throws -> Int {
    let info = try await redisCLI(node, ["INFO", "errorstats"])
    for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("errorstat_\(kind):count=") {
        let digits = line.dropFirst("errorstat_\(kind):count=".count).prefix { $0.isNumber }
        return Int(digits) ?? 0
    }
    return 0
}

/// How many sharded subscribers `node` itself has for `channel` (`PUBSUB SHARDNUMSUB`).
func receivers(_ node: RedisNodeAddress, _ channel: String) async -> Int {
    guard let reply = try? await redisCLI(node, ["PUBSUB", "SHARDNUMSUB", channel]) else { return -1 }
    return reply.split(whereSeparator: \.isNewline).last.flatMap { Int($0) } ?? -1
}

/// The first replica a primary lists in `INFO replication` (`slave0:ip=…,port=…,…`).
private func replicaOf(_ primary: RedisNodeAddress) async -> RedisNodeAddress? {
    guard let info = try? await redisCLI(primary, ["INFO", "replication"]) else { return nil }
    for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("slave0:") {
        var fields: [Substring: Substring] = [:]
        for pair in line.dropFirst("slave0:".count).split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let host = fields["ip"], let port = fields["port"].flatMap({ Int($0) }) else { return nil }
        return RedisNodeAddress(host: String(host), port: port)
    }
    return nil
}

private func replicationOffset(_ node: RedisNodeAddress, _ field: String) async -> Int {
    guard let info = try? await redisCLI(node, ["INFO", "replication"]) else { return -1 }
    for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("\(field):") {
        return Int(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces)) ?? -1
    }
    return -1
}
