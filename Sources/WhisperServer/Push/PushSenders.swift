import Foundation
import WhisperOps
import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage
import WhisperStores

/// The configured providers' senders, shared by every loop (docs/architecture.md "Push").
final class PushSenders: Sendable {
    private let apns: PushSender?
    private let fcm: PushSender?

    private init(apns: PushSender?, fcm: PushSender?) {
        self.apns = apns
        self.fcm = fcm
    }

    /// Reads the providers' keys and starts a sender per configured provider; nil (and one
    /// `push_disabled` line) when none is configured. A key that cannot be used stops start-up
    /// with the variable's name.
    static func start(settings: PushSettings, limits: Limits, metrics: WhisperMetrics, postgres: PostgresPool?,
                      loop: EventLoop, log: Log) throws -> PushSenders? {
        let transport = PushTransport(caFile: settings.caFile, timeoutSeconds: limits.pushRequestTimeoutSeconds)
        let devices = PostgresPushDevices(pool: postgres, loop: loop)
        let outcomes = PushOutcomes(metrics: metrics, unregistered: { devices.remove($0, log: log) })
        func sender(_ provider: PushProvider) throws -> PushSender {
            guard let sender = PushSender(provider: provider, transport: transport, limits: limits, outcomes: outcomes, log: log)
            else { throw PushStartError.curlUnavailable }
            return sender
        }
        let apns = try settings.apns.map { try sender(APNsProvider(settings: $0, limits: limits)) }
        let fcm = try settings.fcm.map { try sender(FCMProvider(settings: $0, limits: limits, transport: transport,
                                                                   oauthFailures: metrics.pushOAuthFailures.labels("fcm"), log: log)) }
        log.info(apns == nil && fcm == nil ? "push_disabled" : "push_enabled",
                 ["apns": .bool(apns != nil), "fcm": .bool(fcm != nil), "extraCA": .bool(settings.caFile != nil)])
        guard apns != nil || fcm != nil else { return nil }
        return PushSenders(apns: apns, fcm: fcm)
    }

    /// `finished` runs on the sender's thread (`PushDispatcher` says when).
    func submit(_ job: PushJob, finished: @escaping @Sendable (Bool) -> Void) -> PushSubmission {
        guard let sender = job.provider == .apns ? apns : fcm else { return .disabled }
        return sender.submit(job, finished: finished) ? .queued : .dropped
    }

    /// One loop's dispatcher: the outcome comes back on that loop.
    func dispatcher(on loop: EventLoop) -> PushDispatcher { LoopPushDispatcher(senders: self, loop: loop) }

    private var senders: [PushSender] { [apns, fcm].compactMap { $0 } }

    /// At exit (docs/operations.md "Shutdown"): waits until every queued push has been sent or
    /// given up (retries included), or `deadline` passed, then stops the threads. Answers the
    /// jobs left unfinished, which are lost.
    func drain(until deadline: Date) async -> Int {
        while Date() < deadline, senders.contains(where: { $0.outstanding > 0 }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let left = senders.reduce(0) { $0 + $1.outstanding }
        stop()
        return left
    }

    func stop() { senders.forEach { $0.stop() } }
}

/// `PushSenders` as one loop's `PushDispatcher`.
private struct LoopPushDispatcher: PushDispatcher {
    let senders: PushSenders
    let loop: EventLoop

    func submit(_ job: PushJob, finished: @escaping (Bool) -> Void) -> PushSubmission {
        let back = LoopBound(finished, loop: loop)
        return senders.submit(job) { delivered in back.deliver { $0(delivered) } }
    }
}

enum PushStartError: Error, CustomStringConvertible {
    case curlUnavailable

    var description: String { "libcurl could not be initialised for push" }
}
