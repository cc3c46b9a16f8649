import Foundation
import Testing
import WhisperProtocol
@testable import WhisperClient

/// The send state machine of spec §5.3–§5.4, without a server.
@Suite struct OutboxTests {
    static let bob = WhisperID.validate("WSP-HESP-ERAL-IT3A")

    static func home() throws -> ClientHome {
        try ClientHome(path: NSTemporaryDirectory() + "whisper-outbox-" + UUID().uuidString.lowercased())
    }

    static func entry(_ id: String) throws -> OutboxEntry {
        let alice = try ClientIdentity(mnemonic: Mnemonic(entropy: [UInt8](repeating: 7, count: 16)))
        guard let bob, let me = WhisperID.validate("WSP-ABCD-EFGH-IJ54") else { throw ClientError.noIdentity }
        let envelope = try alice.seal(Array("hi".utf8), kind: .message, id: id, from: me, to: bob, timestampMillis: 1_000,
                                      recipientEncPublicKey: alice.encPublicKey)
        return OutboxEntry(envelope: envelope, msgType: .text, groupId: nil)
    }

    @Test func entries_moveQueuedSendingSentDelivered_andSurviveAReload() throws {
        let home = try Self.home()
        var outbox = Outbox()
        let entry = try Self.entry("m-1")
        outbox.enqueue(entry)
        #expect(outbox.due(now: 0) == [entry.key])
        outbox.markSending(entry.key)
        #expect(outbox.due(now: 0).isEmpty)
        try outbox.save(in: home)
        // A process that died while the envelope was on the wire: queued again, same bytes.
        let reloaded = try Outbox.load(from: home)
        #expect(reloaded.entry("m-1")?.state == .queued)
        #expect(reloaded.entry("m-1")?.ciphertext == outbox.entry("m-1")?.ciphertext)
        #expect(reloaded.entry("m-1")?.signature == outbox.entry("m-1")?.signature)
        outbox.markSent(entry.key)
        let first = outbox.markDelivered("M-1", by: entry.to), again = outbox.markDelivered("m-1", by: entry.to)
        #expect(first, "ids compare case-insensitively")
        #expect(!again, "a repeated receipt changes nothing")
        try outbox.save(in: home)
        #expect(try Outbox.load(from: home).entry("m-1")?.state == .delivered)
    }

    @Test func aReadReceipt_movesToRead_evenBeforeDelivered_andNothingMovesItBack() throws {
        let home = try Self.home()
        var outbox = Outbox()
        let entry = try Self.entry("m-r")
        outbox.enqueue(entry)
        outbox.markSent(entry.key)
        let read = outbox.markRead("M-R", by: entry.to), again = outbox.markRead("m-r", by: entry.to)
        let delivered = outbox.markDelivered("m-r", by: entry.to)
        #expect(read, "a read may overtake the delivered receipt")
        #expect(!again)
        #expect(!delivered, "a late delivered does not move read back")
        outbox.markSent(entry.key)
        #expect(outbox.entry("m-r")?.state == .read)
        try outbox.save(in: home)
        #expect(try Outbox.load(from: home).entry("m-r")?.state == .read)
    }

    @Test func retryableFailures_backOff_andTheTenthAttemptFails() throws {
        var outbox = Outbox(backoff: Backoff(baseMillis: 100, capMillis: 10_000))
        let key = try Self.entry("m-2").key
        outbox.enqueue(try Self.entry("m-2"))
        var delays: [Int64] = []
        for attempt in 1...Outbox.maxAttempts {
            outbox.markSending(key)
            let state = outbox.markFailed(key, error: "RATE_LIMITED", retryable: true, now: 0, random: { $0.upperBound })
            if attempt < Outbox.maxAttempts {
                #expect(state == .queued)
                delays.append(outbox.entry("m-2")?.nextAttemptAt ?? -1)
            } else {
                #expect(state == .failed)
            }
        }
        #expect(delays == [100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000])
        #expect(outbox.entry("m-2")?.attempts == 10)
        #expect(outbox.due(now: .max).isEmpty)
    }

    @Test func aPermanentError_failsAtOnce_andAServerHint_replacesTheBackoff() throws {
        var outbox = Outbox()
        let (m3, m4) = (try Self.entry("m-3"), try Self.entry("m-4"))
        outbox.enqueue(m3)
        outbox.enqueue(m4)
        #expect(outbox.markFailed(m3.key, error: "NOT_FOUND", retryable: false, now: 0) == .failed)
        outbox.markFailed(m4.key, error: "RATE_LIMITED", retryable: true, now: 5_000, retryAfterMillis: 750)
        #expect(outbox.entry("m-4")?.nextAttemptAt == 5_750)
        #expect(outbox.due(now: 5_749).isEmpty && outbox.due(now: 5_750) == [m4.key])
    }

    @Test func aConnectionLoss_requeuesWithoutChargingAnAttempt() throws {
        var outbox = Outbox()
        let m5 = try Self.entry("m-5")
        outbox.enqueue(m5)
        outbox.markSending(m5.key)
        outbox.requeue(m5.key)
        #expect(outbox.entry("m-5")?.state == .queued && outbox.entry("m-5")?.attempts == 0)
    }
}

@Suite struct ClientStateTests {
    @Test func backoff_growsExponentially_withJitterInTheUpperHalf_upToTheCap() {
        let backoff = Backoff(baseMillis: 500, capMillis: 30_000)
        #expect(backoff.delayMillis(attempt: 0, random: { $0.lowerBound }) == 250)
        #expect(backoff.delayMillis(attempt: 3, random: { $0.upperBound }) == 4_000)
        #expect(backoff.delayMillis(attempt: 60, random: { $0.upperBound }) == 30_000)
        for attempt in 0..<12 {
            let delay = backoff.delayMillis(attempt: attempt)
            #expect(delay >= 250 && delay <= 30_000)
        }
    }

    @Test func aDrainingServersCloseReason_givesItsRetryAfter_andAnythingElseNone() {
        #expect(Backoff.retryAfterMillis(closeReason: Array(#"{"reason":"server_restarting","retryAfterMs":734}"#.utf8)) == 734)
        #expect(Backoff.retryAfterMillis(closeReason: []) == nil)
        #expect(Backoff.retryAfterMillis(closeReason: Array("going away".utf8)) == nil)
        #expect(Backoff.retryAfterMillis(closeReason: Array(#"{"retryAfterMs":-5}"#.utf8)) == nil)
    }

    @Test func seenMessages_areBounded_forgetTheOldest_andPersist() throws {
        var seen = SeenMessages(capacity: 3)
        guard let alice = WhisperID.validate("WSP-ABCD-EFGH-IJ54") else { return }
        let keys = (1...4).map { SeenMessages.key(from: alice, messageId: "ID-\($0)") }
        for key in keys { seen.insert(key) }
        seen.insert(keys[3])
        #expect(seen.count == 3)
        #expect(!seen.contains(keys[0]) && seen.contains(keys[1]) && seen.contains(keys[3]))
        #expect(SeenMessages.key(from: alice, messageId: "ID-4") == SeenMessages.key(from: alice, messageId: "id-4"))
        let home = try OutboxTests.home()
        try seen.save(in: home)
        let loaded = try SeenMessages.load(from: home, capacity: 3)
        #expect(loaded.contains(keys[1]) && loaded.contains(keys[3]) && !loaded.contains(keys[0]))
    }

    @Test func theLockedSeed_opensOnlyWithItsPassphrase_andIsNotStoredInClear() throws {
        let home = try OutboxTests.home()
        let mnemonic = Mnemonic.generate()
        // Small Argon2id limits: the construction is under test, not its cost.
        try LockedIdentity(mnemonic: mnemonic, passphrase: "pässword", opsLimit: 1, memLimit: 8_192).save(in: home)
        let text = String(decoding: home.read("identity.json") ?? [], as: UTF8.self)
        #expect(!text.contains(mnemonic.words[0]) && !text.contains(Hex.encode(mnemonic.entropy)))
        let locked = try LockedIdentity.load(from: home)
        #expect(try locked?.unlock(passphrase: "pässword") == mnemonic)
        #expect(throws: ClientError.wrongPassphrase) { try locked?.unlock(passphrase: "password") }
    }

    @Test func serverURLs_parseSchemesHostsAndPorts() {
        #expect(ServerURL("http://127.0.0.1:8080") == ServerURL("ws://127.0.0.1:8080/"))
        #expect(ServerURL("https://relay.example")?.port == 443)
        #expect(ServerURL("https://relay.example")?.tls == true)
        #expect(ServerURL("wss://relay.example:8443/ws")?.hostHeader == "relay.example:8443")
        #expect(ServerURL("http://[::1]:9000/x?y=1")?.host == "::1")
        #expect(ServerURL("http://[::1]:9000/x?y=1")?.path == "/x?y=1")
        #expect(ServerURL("http://h:99999") == nil)
        #expect(ServerURL("ftp://h") == nil)
        #expect(ServerURL("http://") == nil)
    }
}
