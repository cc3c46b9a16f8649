import Foundation
import Testing
import WhisperClient
import WhisperProtocol
import WhisperTesting

/// Issue #28's "the server is restarted (SIGTERM) and killed (-9) mid-conversation and the
/// outbox delivers everything exactly once", with the real `whisper-server` binary in a process
/// of its own (`ServerProcess`) on the test PostgreSQL and Redis, restarted on the same port.
@Suite(.serialized) struct ServerCrashTests {
    static let messagesEachWay = 200

    /// One side of the conversation on a thread of its own: `ClientSession.run` (reconnects and
    /// all), sending its next message between polls until it has sent them all, every one is
    /// delivered and every one of the peer's has arrived.
    final class Talker: @unchecked Sendable {
        let device: ClientDevice
        let peer: WhisperID
        let name: String
        private let lock = NSLock()
        private var queuedCount = 0
        private var outcome: Result<Void, ClientError>?

        init(_ device: ClientDevice, peer: WhisperID, name: String) { (self.device, self.peer, self.name) = (device, peer, name) }

        var queued: Int { lock.withLock { queuedCount } }
        var result: Result<Void, ClientError>? { lock.withLock { outcome } }

        func start(deadline: Date) {
            Thread { [self] in
                let session = device.session
                let total = ServerCrashTests.messagesEachWay
                let result = Result { () throws(ClientError) in
                    try session.run(pollMillis: 20, between: { () throws(ClientError) in
                        let next = session.outbox.entries.count
                        if next < total {
                            // Counted once it is in the outbox: a send that throws after that (the
                            // server went away during the flush) is still queued, and retried.
                            defer { lock.withLock { queuedCount = session.outbox.entries.count } }
                            try session.send(text: "\(name) \(next)", to: peer)
                        }
                    }, until: { [self] in
                        Date() > deadline || (session.outbox.entries.count == total
                            && session.outbox.entries.allSatisfy { $0.state == .delivered }
                            && Set(device.messages.map(\.messageId)).count >= total)
                    })
                }
                session.disconnect()
                lock.withLock { outcome = result }
            }.start()
        }
    }

    /// The server half of the crash test, step by step: a receipt applied after a crash, while
    /// the killed node's route for the sender is still in Redis, must still reach the sender.
    @Test func aReceiptAfterAKill_reachesTheSenderWhoseOldRouteIsStale() async throws {
        let server = try ServerProcess()
        try await server.start()
        let alice = try ClientDevice(port: server.publicPort), bob = try ClientDevice(port: server.publicPort)
        try alice.session.connect()
        try bob.session.connect()
        let bobId = try bob.id
        bob.session.disconnect()
        let sent = try alice.session.send(text: "before the crash", to: bobId)
        #expect(alice.session.outbox.entry(sent)?.state == .sent)

        // Killed with Alice's socket open: her route in Redis names the dead process.
        try await server.stop(signal: SIGKILL)
        try await server.start()
        try bob.session.connect()
        #expect(bob.messages.map(\.text) == ["before the crash"], "receipted during the connect")
        try alice.session.connect()
        try alice.idle(seconds: 1)
        #expect(alice.session.outbox.entry(sent)?.state == .delivered,
                "message_delivered was routed to the killed process and neither written nor kept")
        #expect(try await server.stop(signal: SIGTERM) == 0)
    }

    @Test func aConversation_throughASIGTERMAndASIGKILL_deliversEveryMessageExactlyOnce() async throws {
        let server = try ServerProcess(["WHISPER_RATE_SEND": "100000/10"])
        try await server.start()
        let alice = try ClientDevice(port: server.publicPort), bob = try ClientDevice(port: server.publicPort)
        try alice.session.connect()
        try bob.session.connect()
        let (aliceId, bobId) = (try alice.id, try bob.id)
        try alice.session.addContact(bobId)
        try bob.session.addContact(aliceId)

        let started = Date()
        let talkers = [Talker(alice, peer: bobId, name: "alice"), Talker(bob, peer: aliceId, name: "bob")]
        for talker in talkers { talker.start(deadline: started.addingTimeInterval(50)) }
        var exits: [Int32?] = []
        // A drain at about a third of the conversation, a crash at about two thirds; each time
        // the same binary comes back on the same port.
        for (signal, after) in [(SIGTERM, Self.messagesEachWay / 3), (SIGKILL, 2 * Self.messagesEachWay / 3)] {
            while talkers[0].queued < after, talkers[0].result == nil, Date().timeIntervalSince(started) < 50 {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            exits.append(try await server.stop(signal: signal))
            try await server.start()
        }
        while talkers.contains(where: { $0.result == nil }) { try await Task.sleep(nanoseconds: 50_000_000) }
        let elapsed = Date().timeIntervalSince(started)
        #expect(try await server.stop(signal: SIGTERM) == 0, "\(server.tail())")
        #expect(exits == [0, nil], "the drain exits 0, the kill by its signal")

        for talker in talkers {
            #expect(throws: Never.self, "\(talker.name)") { try talker.result?.get() }
        }
        let expected = { (name: String) in Set((0..<Self.messagesEachWay).map { "\(name) \($0)" }) }
        for (device, from) in [(bob, "alice"), (alice, "bob")] {
            let texts = device.messages.map(\.text)
            #expect(texts.count == Self.messagesEachWay, "each message reached the app once, none lost")
            #expect(Set(texts) == expected(from))
            #expect(Set(device.messages.map(\.messageId)).count == texts.count, "no duplicate reached the app")
            let states = device.session.outbox.entries.map(\.state)
            let undelivered = device.session.outbox.entries.indices.filter { states[$0] != .delivered }
            #expect(states.count == Self.messagesEachWay && undelivered.isEmpty,
                    "every outbox entry delivered: \(Dictionary(grouping: states, by: \.rawValue).mapValues(\.count)), not: \(undelivered)")
            // What the dedupe absorbed: the same message handed over again after the restarts
            // (a receipt lost with the server, a page fetched again).
            let raw = device.transport.arrivals
            #expect(Set(raw) == Set(device.messages.map { $0.messageId.lowercased() }))
            print("ServerCrashTests: \(from)'s messages: \(raw.count) off the receiver's socket, \(raw.count - Set(raw).count) "
                  + "duplicates absorbed by its dedupe, \(device.transport.connects) connects, \(Int(elapsed)) s")
        }
        #expect(elapsed < 50)
    }
}
