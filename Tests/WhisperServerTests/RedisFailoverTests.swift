import Foundation
import Glibc
import Testing
import WhisperStorage
import WhisperTesting

/// Whole servers on a Redis Cluster of the test's own, one primary of it killed with SIGKILL
/// in the middle of a send burst (issue #27 "Failover without loss"). With
/// `WHISPER_REDIS_MIN_REPLICAS=1` a `message_accepted` means the recipient's shard and its replica
/// both hold the message, so the promoted replica still has every acknowledged one. Having no
/// replica itself, it refuses accepts until the killed node is back as its replica (restarted
/// by the test, as an orchestrator would); every refused send is retried by its phone with the
/// same message, as apps do.
@Suite struct RedisFailoverTests {
    static let senders = 3, messagesPerSender = 80, recipients = 6

    @Test func killedPrimary_duringASendBurst_everyAcknowledgedMessageIsQueuedExactlyOnce() async throws {
        try await withPrivateCluster { url, directory in
            let cluster = try await TestCluster([
                "WHISPER_REDIS_URL": url, "WHISPER_REDIS_CLUSTER": "1", "WHISPER_REDIS_MIN_REPLICAS": "1",
                "WHISPER_RATE_SEND": "100000/10", "WHISPER_RATE_SEND_IP": "100000/10",
            ])
            defer { cluster.stop() }
            // Offline recipients, spread over the shards by their ids: what they are sent is queued.
            var recipients: [Phone] = []
            for _ in 0..<Self.recipients { recipients.append(try Phone.online(cluster.nodeB)) }
            for recipient in recipients { recipient.ws.socket.close() }
            await Messaging.waitForAuthenticated(cluster.nodeB, count: 0)
            let recipientIds = recipients.map(\.id)

            // The primary holding the first recipient's queue (and whatever else hashes there).
            let nodes = try await ClusterNodes.read(seedOf: url)
            let victim = try #require(nodes.primary(forSlot: RedisSlot.of(recipientIds[0])))
            let pidText = try String(contentsOfFile: "\(directory)/\(victim.port)/redis.pid", encoding: .utf8)
            let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))

            let progress = AcceptedCount()
            let server = cluster.nodeA
            let bursts = (0..<Self.senders).map { _ in
                onOwnThread { SendBurst.run(on: server, to: recipientIds, count: Self.messagesPerSender, progress: progress) }
            }
            // A third of the way in, the primary dies; its replica is promoted after the 2 s node
            // timeout. The promoted replica has no replica of its own, so with MIN_REPLICAS=1 its
            // accepts are refused (INTERNAL_ERROR, retried) until the dead node is back as one.
            #expect(await eventually(within: 30, every: 0.005) { progress.value >= Self.senders * Self.messagesPerSender / 3 })
            #expect(kill(pid, SIGKILL) == 0)
            let slot = RedisSlot.of(recipientIds[0])
            #expect(await eventually(within: 20) {
                (try? await ClusterNodes.read(seedOf: url).primary(forSlot: slot)).map { $0.port != victim.port } ?? false
            })
            let acceptedWhileDown = progress.value
            try await restartClusterNode(directory: directory, port: victim.port)
            var outcomes: [SendBurst] = []
            for burst in bursts { outcomes.append(await burst.value) }

            for outcome in outcomes { #expect(outcome.problems.isEmpty, "\(outcome.problems)") }
            let accepted = outcomes.flatMap(\.accepted)
            #expect(accepted.count == Self.senders * Self.messagesPerSender)
            print("failover: \(accepted.count) accepted (\(acceptedWhileDown) before the old primary was back), "
                  + "\(outcomes.map(\.retries).reduce(0, +)) refused and retried, \(outcomes.map(\.reconnects).reduce(0, +)) reconnects")

            // Every acknowledged message is in its recipient's queue, and only once.
            var queued: [String] = []
            for recipient in recipients {
                let phone = try await retrying { try recipient.reconnect(cluster.nodeB) }
                let messages = try phone.fetchAll().messages
                queued += messages.compactMap { $0["messageId"] as? String }
                for message in messages { #expect(message["to"] as? String == recipient.id) }
                phone.ws.socket.close()
            }
            #expect(queued.count == Set(queued).count, "a message was queued twice")
            let lost = Set(accepted).subtracting(queued).count, unacknowledged = Set(queued).subtracting(accepted).count
            #expect(Set(queued) == Set(accepted), "lost: \(lost), unacknowledged but queued: \(unacknowledged)")
        }
    }

    /// `body` until it stops throwing (a login right after a failover may meet the dead shard
    /// once more), for up to 10 s.
    private func retrying<T>(_ body: () throws -> T) async throws -> T {
        let deadline = Date().addingTimeInterval(10)
        while true {
            do {
                return try body()
            } catch where Date() < deadline {
                try await Task.sleep(nanoseconds: 100_000_000)
            }
        }
    }
}

/// One phone sending `count` messages to `recipients` in turn, each until it is accepted: an
/// `INTERNAL_ERROR` (the store failed) or a lost socket means the same message again 100 ms
/// later, as apps retry; anything else is a problem.
struct SendBurst: Sendable {
    var accepted: [String] = []
    var retries = 0
    var reconnects = 0
    var problems: [String] = []

    static func run(on server: TestServer, to recipients: [String], count: Int, progress: AcceptedCount) -> SendBurst {
        var burst = SendBurst()
        var phone: Phone
        do {
            phone = try Phone.online(server)
        } catch {
            burst.problems.append("login: \(error)")
            return burst
        }
        defer { phone.ws.socket.close() }
        for index in 0..<count {
            let message = TestMessage(from: phone.id, to: recipients[index % recipients.count])
            let deadline = Date().addingTimeInterval(60)
            var done = false
            while !done && Date() < deadline {
                do {
                    let reply = try SendBurst.reply(to: message, from: phone)
                    if reply.frameType == "message_accepted" {
                        burst.accepted.append(message.messageId)
                        progress.increment()
                        done = true
                    } else if reply.payload["code"] as? String == "INTERNAL_ERROR" {
                        burst.retries += 1
                    } else {
                        burst.problems.append("\(message.messageId): \(reply)")
                        done = true
                    }
                } catch {
                    burst.reconnects += 1
                    if let again = try? phone.reconnect(server) { phone = again }
                }
                if !done { usleep(100_000) }
            }
            if !done { burst.problems.append("\(message.messageId): not accepted within 60 s") }
        }
        return burst
    }

    /// The answer to `message`: the recipients' presence (they went offline as peers) may come first.
    private static func reply(to message: TestMessage, from phone: Phone) throws -> [String: Any] {
        let frame = TestWebSocket.privilegedFrame("send_message", token: phone.token, requestId: "send",
                                                  extra: message.payload(signedBy: phone.identity.signing))
        try phone.ws.sendText(String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self))
        while true {
            let answer = try phone.ws.receiveJSON()
            if answer["requestId"] as? String == "send" { return answer }
        }
    }
}

final class AcceptedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// `body` on a thread of its own (it blocks on sockets), awaited as a task.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Task<T, Never> {
    Task {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}

/// `CLUSTER NODES` of a seed, as the primaries' addresses and slot ranges.
struct ClusterNodes {
    struct Primary: Equatable {
        var port: Int
        var slots: [ClosedRange<Int>]
    }

    var primaries: [Primary]

    func primary(forSlot slot: Int) -> Primary? {
        primaries.first { $0.slots.contains { $0.contains(slot) } }
    }

    /// Asks the first seed of `url` (`redis://127.0.0.1:P1,…/`) that answers.
    static func read(seedOf url: String) async throws -> ClusterNodes {
        let hosts = url.dropFirst("redis://".count).split(separator: "/").first.map { $0.split(separator: ",") } ?? []
        var lastError: Error = ClusterNodesError(description: "no seeds in \(url)")
        for host in hosts {
            let parts = host.split(separator: ":")
            guard parts.count == 2 else { continue }
            do {
                let text = try await Subprocess.run("/usr/bin/redis-cli", ["-h", String(parts[0]), "-p", String(parts[1]), "cluster", "nodes"])
                return ClusterNodes(text: text)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// `<id> <ip:port@cport> <flags> <primary> <ping> <pong> <epoch> <link> <slot ranges…>`;
    /// primaries not flagged failed.
    init(text: String) {
        primaries = text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 8, fields[2].contains("master"), !fields[2].contains("fail"),
                  let address = fields[1].split(separator: "@").first?.split(separator: ":").last,
                  let port = Int(address) else { return nil }
            let slots = fields.dropFirst(8).compactMap { range -> ClosedRange<Int>? in
                let ends = range.split(separator: "-").compactMap { Int($0) }
                guard let first = ends.first, let last = ends.last, ends.count <= 2, first <= last else { return nil }
                return first...last
            }
            return Primary(port: port, slots: slots)
        }
    }
}

struct ClusterNodesError: Error, CustomStringConvertible {
    let description: String
}
