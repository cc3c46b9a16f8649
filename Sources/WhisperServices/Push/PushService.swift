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
/// 2. the user's device and tokens from PostgreSQL: none → nothing to send;
/// 3. a wake-up job for the device's provider (APNs for iOS, FCM for Android) with the regular
///    push token — never the VoIP token — handed to its sender; a full queue drops it (counted).
///
/// `ring(callee, callIdText)` — `call_initiate` to a callee with no live socket: steps 2 and 3,
/// never coalesced; an iOS device with a VoIP token gets a VoIP push, any other device a call
/// job on its regular token.
public final class PushService: WakeUps {
    private let claims: WakeUpClaims
    private let devices: PushDevices
    private let dispatcher: PushDispatcher
    private let windowMillis: Int64
    private let log: Log
    private let dropped: [PushJob.Provider: Counter]

    public init(limits: Limits, claims: WakeUpClaims, devices: PushDevices, dispatcher: PushDispatcher, log: Log,
                metrics: WhisperMetrics? = nil) {
        self.claims = claims
        self.devices = devices
        self.dispatcher = dispatcher
        self.windowMillis = Int64(limits.pushCoalesceSeconds) * 1000
        self.log = log
        var dropped: [PushJob.Provider: Counter] = [:]
        for provider in PushJob.Provider.allCases { dropped[provider] = metrics?.push.labels(provider.rawValue, "dropped") }
        self.dropped = dropped
    }

    public func wake(_ user: WhisperID) {
        claims.claim(user, windowMillis: windowMillis) { [self] claimed in
            switch claimed {
            case .failure(let error):
                log.warn("push_claim_failed", whisperId: user.string, ["reason": .string(error.description)])
            case .success(false):
                if log.isEnabled(.debug) { log.debug("push_coalesced", whisperId: user.string) }
            case .success(true):
                send(to: user, kind: .wake)
            }
        }
    }

    public var claimWindowMillis: Int64 { windowMillis }

    public func wakeClaimed(_ user: WhisperID) {
        send(to: user, kind: .wake)
    }

    public func ring(_ callee: WhisperID, callIdText: String, handed: @escaping (Bool) -> Void) {
        send(to: callee, kind: .call(callIdText: callIdText), handed: handed)
    }

    /// Steps 2 and 3; `handed` as `ring` says.
    private func send(to user: WhisperID, kind: PushJob.Kind, handed: @escaping (Bool) -> Void = { _ in }) {
        devices.device(of: user) { [self] found in
            switch found {
            case .failure(let error):
                log.warn("push_lookup_failed", whisperId: user.string, ["reason": .string(error.description)])
                handed(false)
            case .success(let device):
                guard let device, let job = Self.job(for: user, device: device, kind: kind) else {
                    if log.isEnabled(.debug) { log.debug("push_no_token", whisperId: user.string) }
                    return handed(true)
                }
                switch dispatcher.submit(job) {
                case .queued:
                    handed(true)
                case .dropped:
                    dropped[job.provider]?.increment()
                    log.warn("push_dropped", whisperId: user.string, ["provider": .string(job.provider.rawValue)])
                    handed(false)
                case .disabled:
                    if log.isEnabled(.debug) {
                        log.debug("push_provider_disabled", whisperId: user.string, ["provider": .string(job.provider.rawValue)])
                    }
                    handed(true)
                }
            }
        }
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
