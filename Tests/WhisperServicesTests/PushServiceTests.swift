import Foundation
import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices
import WhisperTesting

/// `PushService` over fakes: a wake-up is owed from its claim until its provider took it, and
/// the sweep sends again only what is still owed (docs/operations.md "Push").
@Suite struct PushServiceTests {
    private final class Claims: WakeUpClaims {
        var claimAnswer = true
        var owed: [(WhisperID, Int64)] = []
        var settled: [(user: WhisperID, ticket: WakeTicket, retry: Bool)] = []
        var due: [(user: WhisperID, ticket: WakeTicket)] = []
        var states: [WhisperID: OwedWakeUp] = [:]
        var leases: [Int64] = []

        func claim(_ user: WhisperID, windowMillis: Int64, completion: @escaping StoreCompletion<Bool>) {
            completion(.success(claimAnswer))
        }
        func owe(_ user: WhisperID, delayMillis: Int64, completion: @escaping StoreCompletion<WakeTicket>) {
            owed.append((user, delayMillis))
            completion(.success(WakeTicket(Int64(owed.count))))
        }
        func settle(_ user: WhisperID, ticket: WakeTicket, retryAfterFailure: Bool, windowMillis: Int64, maxDelayMillis: Int64) {
            settled.append((user, ticket, retryAfterFailure))
        }
        func takeDue(batch: Int, leaseMillis: Int64, completion: @escaping StoreCompletion<[(user: WhisperID, ticket: WakeTicket)]>) {
            leases.append(leaseMillis)
            completion(.success(due))
        }
        func recheck(_ user: WhisperID, windowMillis: Int64, completion: @escaping StoreCompletion<OwedWakeUp>) {
            completion(.success(states[user] ?? .owed))
        }
    }

    private final class Devices: PushDevices {
        var answer: Result<PushDevice?, StoreError> = .success(PushDevice(platform: .ios, pushToken: "tok", voipToken: "voip"))
        func device(of user: WhisperID, completion: @escaping StoreCompletion<PushDevice?>) { completion(answer) }
    }

    private final class Dispatcher: PushDispatcher {
        var answer = PushSubmission.queued
        var jobs: [(job: PushJob, finished: (Bool) -> Void)] = []
        func submit(_ job: PushJob, finished: @escaping (Bool) -> Void) -> PushSubmission {
            if answer == .queued { jobs.append((job, finished)) }
            return answer
        }
    }

    private let claims = Claims(), devices = Devices(), dispatcher = Dispatcher()
    private let metrics = WhisperMetrics(registry: MetricsRegistry(), includeProcessMetrics: false)
    private let limits = Limits()
    private var service: PushService {
        PushService(limits: limits, claims: claims, devices: devices, dispatcher: dispatcher,
                    log: Log(level: .error, sink: MemoryLogSink()), metrics: metrics)
    }

    @Test func aClaimedWakeUp_isOwedForItsInFlightBound_sent_andSettledByTheProvidersOutcome() {
        let (taken, givenUp) = (WhisperID.random(), WhisperID.random())
        let service = service
        service.wake(taken)
        service.wakeClaimed(givenUp)
        #expect(claims.owed.map(\.0) == [taken, givenUp])
        #expect(claims.owed.allSatisfy { $0.1 == limits.pushInFlightMillis } && limits.pushInFlightMillis == 220_000)
        #expect(dispatcher.jobs.map(\.job.kind) == [.wake, .wake] && dispatcher.jobs.map(\.job.token) == ["tok", "tok"])
        #expect(claims.settled.isEmpty, "nothing is settled before the provider answers")

        dispatcher.jobs[0].finished(true)
        dispatcher.jobs[1].finished(false)
        #expect(claims.settled.map(\.user) == [taken, givenUp])
        #expect(claims.settled.map(\.ticket) == [WakeTicket(1), WakeTicket(2)])
        #expect(claims.settled.map(\.retry) == [false, true], "a given-up send is due again after the backoff")
    }

    @Test func aCoalescedWakeUp_andACall_oweNothing() {
        claims.claimAnswer = false
        let service = service
        service.wake(WhisperID.random())
        service.ring(WhisperID.random(), callIdText: UUID().uuidString)
        #expect(claims.owed.isEmpty)
        #expect(dispatcher.jobs.count == 1 && dispatcher.jobs[0].job.isVoIPToken)
        dispatcher.jobs[0].finished(true)
        #expect(claims.settled.isEmpty)
    }

    @Test func whatCouldNotBeHanded_isDueAgain_andWhatHasNothingToSend_isForgotten() {
        let service = service
        func outcome(_ setUp: () -> Void) -> Bool? {
            setUp()
            claims.settled = []
            service.wakeClaimed(WhisperID.random())
            return claims.settled.count == 1 ? claims.settled[0].retry : nil
        }
        #expect(outcome { devices.answer = .failure(.unavailable("down")) } == true, "the look-up failed")
        #expect(outcome { devices.answer = .success(PushDevice(platform: .ios, pushToken: "tok", voipToken: nil))
                          dispatcher.answer = .dropped } == true, "the sender's queue was full")
        #expect(outcome { dispatcher.answer = .disabled } == false, "no provider for the device")
        #expect(outcome { devices.answer = .success(PushDevice(platform: .android, pushToken: nil, voipToken: nil)) } == false,
                "no token")
        #expect(outcome { devices.answer = .success(nil) } == false, "no device")
        #expect(metrics.push.labels("apns", "dropped").value == 1)
    }

    @Test func theSweep_leasesTheDueForTheInFlightBound_andSendsOnlyWhatIsStillOwed() throws {
        let (online, nothing, coalesced, owed) = (WhisperID.random(), WhisperID.random(), WhisperID.random(), WhisperID.random())
        let ticket = WakeTicket(77)
        claims.due = [online, nothing, coalesced, owed].map { ($0, ticket) }
        claims.states = [online: .online, nothing: .nothingWaits, coalesced: .coalesced]
        var count: Int?
        service.resendOwed { count = try? $0.get() }
        #expect(count == 4)
        #expect(claims.leases == [limits.pushInFlightMillis])
        #expect(claims.settled.map(\.user) == [online, nothing] && claims.settled.allSatisfy { $0.ticket == ticket && !$0.retry })
        let resent = try #require(dispatcher.jobs.first)
        #expect(dispatcher.jobs.count == 1 && resent.job.user == owed && resent.job.kind == .wake)
        #expect(metrics.push.labels("apns", "resent").value == 1)

        resent.finished(false)
        #expect(claims.settled.last.map { $0.user == owed && $0.ticket == ticket && $0.retry } == true)
    }
}
