import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// `PresenceService` against in-memory stores: what a socket is sent when it comes to hold a
/// user, and who hears of it (docs/protocol.md "Presence").
@Suite struct PresenceServiceTests {
    static let alice = WhisperID.validate("WSP-ABCD-EFGH-IJ54")!
    static let bob = WhisperID.validate("WSP-HESP-ERAL-IT3A")!
    static let here = LiveRoute(node: "n1", loop: 0, connection: 7)
    static let bobRoute = LiveRoute(node: "n1", loop: 1, connection: 9)
    static let online = PresenceAnnouncement(frame: Array("online".utf8), peers: [(bob, bobRoute)])

    final class Harness {
        let store = FakePresenceStore()
        let calls = FakeHeldCalls()
        let router = FakeRouter()
        let sink = MemoryLogSink()
        lazy var service = PresenceService(store: store, calls: calls, router: router, log: Log(level: .debug, sink: sink))

        /// The frames, after which the caller reports them written.
        func cameOnline() -> [String]? {
            var frames: [[UInt8]]?
            service.cameOnline(PresenceServiceTests.alice, at: PresenceServiceTests.here) { sent, written in
                frames = sent
                #expect(self.store.forgotten.isEmpty, "nothing is forgotten before it was written")
                written()
            }
            return frames?.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test func cameOnline_sendsKeptEventsThenHeldOffers_andTellsThePeersOnThisNode() {
        let harness = Harness()
        harness.store.arrival = .success(PresenceArrival(events: [Array("e1".utf8), Array("e2".utf8)],
                                                         announcement: Self.online, hasHeldCalls: true))
        harness.calls.offers = .success([Array("offer".utf8), Array("ice".utf8)])
        #expect(harness.cameOnline() == ["e1", "e2", "offer", "ice"])
        #expect(harness.store.forgotten.map(\.user) == [Self.alice], "the kept events, not the offers, once written")
        #expect(harness.store.forgotten.first?.events == [Array("e1".utf8), Array("e2".utf8)])
        #expect(harness.store.onlines.map(\.user) == [Self.alice] && harness.store.onlines.map(\.route) == [Self.here])
        #expect(harness.router.deliveries.map(\.user) == [Self.bob])
        #expect(harness.router.deliveries.first?.route == Self.bobRoute && harness.router.deliveries.first?.kind == .signal)
    }

    @Test func cameOnline_withNothingRinging_doesNotAskForHeldCalls() {
        let harness = Harness()
        harness.store.arrival = .success(PresenceArrival(events: [Array("e1".utf8)], announcement: nil, hasHeldCalls: false))
        #expect(harness.cameOnline() == ["e1"])
        #expect(harness.calls.asked.isEmpty)
        #expect(harness.router.deliveries.isEmpty)
    }

    @Test func cameOnline_whenAStepFails_logsIt_andTheLoginStands() {
        let failedStore = Harness()
        failedStore.store.arrival = .failure(.unavailable("down"))
        failedStore.calls.offers = .success([Array("offer".utf8)])
        // The store could not say whether calls ring: they are asked for anyway.
        #expect(failedStore.cameOnline() == ["offer"])
        #expect(failedStore.sink.lines.contains { $0.contains("presence_online_failed") })
        #expect(failedStore.store.forgotten.isEmpty)

        let failedCalls = Harness()
        failedCalls.store.arrival = .success(PresenceArrival(events: [Array("e1".utf8)], announcement: nil, hasHeldCalls: true))
        failedCalls.calls.offers = .failure(.storage(.unavailable("down")))
        #expect(failedCalls.cameOnline() == ["e1"])
        #expect(failedCalls.sink.lines.contains { $0.contains("held_calls_failed") })
    }

    @Test func wentOffline_announcesWhenTheStoreDid_andAlwaysCompletes() {
        let harness = Harness()
        var completed = 0
        harness.store.departure = .success(Self.online)
        harness.service.wentOffline(Self.alice, at: Self.here) { completed += 1 }
        #expect(harness.router.deliveries.map(\.user) == [Self.bob])
        harness.store.departure = .failure(.unavailable("down"))
        harness.service.wentOffline(Self.alice, at: Self.here) { completed += 1 }
        #expect(completed == 2)
        #expect(harness.sink.lines.contains { $0.contains("presence_offline_failed") })
    }

    @Test func sweep_deliversEveryAnnouncement_andCountsThem() throws {
        let harness = Harness()
        harness.store.swept = .success([Self.online, Self.online])
        var result: Result<Int, ServiceError>?
        harness.service.sweep { result = $0 }
        #expect(try result?.get() == 2)
        #expect(harness.router.deliveries.count == 2)
        harness.store.swept = .failure(.unavailable("down"))
        harness.service.sweep { result = $0 }
        #expect(throws: ServiceError.self) { try result?.get() }
    }
}

final class FakePresenceStore: PresenceStore {
    var arrival: Result<PresenceArrival, StoreError> = .success(PresenceArrival(events: [], announcement: nil, hasHeldCalls: false))
    var departure: Result<PresenceAnnouncement?, StoreError> = .success(nil)
    var swept: Result<[PresenceAnnouncement], StoreError> = .success([])
    var onlines: [(user: WhisperID, route: LiveRoute)] = []
    var forgotten: [(user: WhisperID, events: [[UInt8]])] = []

    func online(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceArrival>) {
        onlines.append((user, route))
        completion(arrival)
    }

    func offline(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceAnnouncement?>) {
        completion(departure)
    }

    func forgetEvents(_ user: WhisperID, _ events: [[UInt8]], completion: @escaping StoreCompletion<Void>) {
        forgotten.append((user, events))
        completion(.success(()))
    }

    func sweep(completion: @escaping StoreCompletion<[PresenceAnnouncement]>) { completion(swept) }
}

final class FakeHeldCalls: HeldCallOffers {
    var offers: Result<[[UInt8]], ServiceError> = .success([])
    var asked: [WhisperID] = []

    func heldCalls(for user: WhisperID, completion: @escaping (Result<[[UInt8]], ServiceError>) -> Void) {
        asked.append(user)
        completion(offers)
    }
}
