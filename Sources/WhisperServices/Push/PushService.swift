import WhisperOps
import WhisperProtocol

/// Push wake-ups (docs/protocol.md "Push wake-ups"): push is a wake-up, never transport — the phone
/// connects and fetches over its socket, so no push carries content or identifiers (a call's
/// `callId` only). One instance per event loop; completions run on that loop. Sending,
/// retries and dead-token removal happen on the providers' sender threads (`PushDispatcher`).
///
/// `wake(user)` — a message or a kept event was queued for a user with no live socket — top to
/// bottom:
/// 1. claim the user's coalescing window in Redis (`Limits.pushCoalesceSeconds`): already
///    claimed (by any node) → coalesced, nothing sent. A login clears the claim, so a phone that
///    woke, fetched and went away is woken again by the next message. A message's accept script
///    claims the window itself when it finds the recipient offline (`wakeClaimed`: no extra
///    round trip per message to a sleeping phone);
/// 2. record the wake-up as owed (`WakeUpClaims.owe`), due again after `Limits.pushInFlightMillis`
///    — longer than any send with its retries takes — unless settled first;
/// 3. the user's device and tokens from PostgreSQL: none → nothing to send (settled);
/// 4. a wake-up job for the device's provider (APNs for iOS, FCM for Android) with the regular
///    push token — never the VoIP token — handed to its sender; a full queue drops it (counted);
/// 5. the sender's outcome settles it: taken by the provider, or the token dead → the entry
///    goes; given up → due again after the window, doubling with each failure in a row.
///
/// So a wake-up is not lost with its node (a crash, a drain's deadline), a full queue, a failed
/// look-up or a provider's outage: loop 0 of every node (`resendOwed`, at each heartbeat) takes
/// the due ones, rechecks each — the user came online, nothing waits any more, or a wake-up was
/// sent meanwhile → nothing to send — and sends the rest from step 3.
///
/// `ring(callee, callIdText)` — `call_initiate` to a callee with no live socket: steps 3 and 4,
/// never coalesced or owed (the call's own sweep pushes again); an iOS device with a VoIP token
/// gets a VoIP push, any other device a call job on its regular token.
public final class PushService: WakeUps {
    /// Owed wake-ups one sweep takes at most.
    public static let resendBatch = 1_000
    /// The longest a failing wake-up waits for its next try.
    public static let maxResendDelayMillis: Int64 = 3_600_000

    private let claims: WakeUpClaims
    private let devices: PushDevices
    private let dispatcher: PushDispatcher
    private let windowMillis: Int64
    private let inFlightMillis: Int64
    private let log: Log
    private let dropped: [PushJob.Provider: Counter]
    private let resent: [PushJob.Provider: Counter]

    public init(limits: Limits, claims: WakeUpClaims, devices: PushDevices, dispatcher: PushDispatcher, log: Log,
                metrics: WhisperMetrics? = nil) {
        self.claims = claims
        self.devices = devices
        self.dispatcher = dispatcher
        self.windowMillis = Int64(limits.pushCoalesceSeconds) * 1000
        self.inFlightMillis = limits.pushInFlightMillis
        self.log = log
        var dropped: [PushJob.Provider: Counter] = [:], resent: [PushJob.Provider: Counter] = [:]
        for provider in PushJob.Provider.allCases {
            dropped[provider] = metrics?.push.labels(provider.rawValue, "dropped")
            resent[provider] = metrics?.push.labels(provider.rawValue, "resent")
        }
        self.dropped = dropped
        self.resent = resent
    }

    public func wake(_ user: WhisperID) {
        claims.claim(user, windowMillis: windowMillis) { [self] claimed in
            switch claimed {
            case .failure(let error):
                log.warn("push_claim_failed", whisperId: user.string, ["reason": .string(error.description)])
            case .success(false):
                if log.isEnabled(.debug) { log.debug("push_coalesced", whisperId: user.string) }
            case .success(true):
                wakeClaimed(user)
            }
        }
    }

    public var claimWindowMillis: Int64 { windowMillis }

    public func wakeClaimed(_ user: WhisperID) {
        claims.owe(user, delayMillis: inFlightMillis) { [self] owed in
            switch owed {
            case .failure(let error):
                // Sent all the same; only a loss on the way would not be made good.
                log.warn("push_owe_failed", whisperId: user.string, ["reason": .string(error.description)])
                send(to: user, kind: .wake, ticket: nil)
            case .success(let ticket):
                send(to: user, kind: .wake, ticket: ticket)
            }
        }
    }

    public func ring(_ callee: WhisperID, callIdText: String, handed: @escaping (Bool) -> Void) {
        send(to: callee, kind: .call(callIdText: callIdText), ticket: nil, handed: handed)
    }

    /// Loop 0 of every node, at each heartbeat: sends the owed wake-ups that are due (see the
    /// type's comment). Answers how many were due.
    public func resendOwed(completion: @escaping StoreCompletion<Int>) {
        claims.takeDue(batch: Self.resendBatch, leaseMillis: inFlightMillis) { [self] taken in
            guard case .success(let due) = taken else { return completion(taken.map(\.count)) }
            for (user, ticket) in due {
                claims.recheck(user, windowMillis: windowMillis) { [self] state in
                    switch state {
                    case .failure(let error):
                        // Left to its lease: due again then.
                        log.warn("push_recheck_failed", whisperId: user.string, ["reason": .string(error.description)])
                    case .success(.online), .success(.nothingWaits):
                        settle(user, ticket, delivered: true)
                    case .success(.coalesced):
                        break  // the sender of that wake-up holds the entry now, or it lapses to its lease
                    case .success(.owed):
                        if log.isEnabled(.debug) { log.debug("push_resend", whisperId: user.string) }
                        send(to: user, kind: .wake, ticket: ticket, resend: true)
                    }
                }
            }
            completion(.success(due.count))
        }
    }

    /// Steps 3–5; `handed` as `ring` says. `ticket`: the owed entry this send settles.
    private func send(to user: WhisperID, kind: PushJob.Kind, ticket: WakeTicket?, resend: Bool = false,
                      handed: @escaping (Bool) -> Void = { _ in }) {
        devices.device(of: user) { [self] found in
            switch found {
            case .failure(let error):
                log.warn("push_lookup_failed", whisperId: user.string, ["reason": .string(error.description)])
                settle(user, ticket, delivered: false)
                handed(false)
            case .success(let device):
                guard let device, let job = Self.job(for: user, device: device, kind: kind) else {
                    if log.isEnabled(.debug) { log.debug("push_no_token", whisperId: user.string) }
                    settle(user, ticket, delivered: true)
                    return handed(true)
                }
                let submitted = dispatcher.submit(job) { [self] delivered in settle(user, ticket, delivered: delivered) }
                switch submitted {
                case .queued:
                    if resend { resent[job.provider]?.increment() }
                    handed(true)
                case .dropped:
                    dropped[job.provider]?.increment()
                    log.warn("push_dropped", whisperId: user.string, ["provider": .string(job.provider.rawValue)])
                    settle(user, ticket, delivered: false)
                    handed(false)
                case .disabled:
                    if log.isEnabled(.debug) {
                        log.debug("push_provider_disabled", whisperId: user.string, ["provider": .string(job.provider.rawValue)])
                    }
                    settle(user, ticket, delivered: true)
                    handed(true)
                }
            }
        }
    }

    /// Step 5: `delivered` false → due again after the backoff.
    private func settle(_ user: WhisperID, _ ticket: WakeTicket?, delivered: Bool) {
        guard let ticket else { return }
        claims.settle(user, ticket: ticket, retryAfterFailure: !delivered, windowMillis: windowMillis,
                      maxDelayMillis: Self.maxResendDelayMillis)
    }

    /// Which token and provider a push uses: a message wake-up never uses the VoIP token; a call
    /// prefers it on iOS.
    static func job(for user: WhisperID, device: PushDevice, kind: PushJob.Kind) -> PushJob? {
        let provider: PushJob.Provider = device.platform == .ios ? .apns : .fcm
        if case .call = kind, provider == .apns, let voip = device.voipToken {
            return PushJob(user: user, provider: .apns, token: voip, isVoIPToken: true, kind: kind)
        }
        guard let token = device.pushToken else { return nil }
        return PushJob(user: user, provider: provider, token: token, isVoIPToken: false, kind: kind)
    }
}
