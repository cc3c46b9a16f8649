import WhisperOps
import WhisperProtocol

/// Call signalling (docs/protocol.md "Calls"): `call_initiate`, `call_answer`,
/// `call_ice_candidate`, `call_end`, the callee's `call_received`, the held offers a callee
/// gets at login, and the confirmation and ring timeouts. One instance per event loop; every
/// completion runs on that loop.
///
/// A signal, top to bottom (the payload was validated and the session checked by the
/// gateway; cheap checks come before the signature):
/// 1. `from` must be the session's identity → else `FORBIDDEN`;
/// 2. `timestamp` within ±10 min of server time → else `INVALID_TIMESTAMP`;
/// 3. Ed25519 over SHA-256 of the canonical bytes (docs/protocol.md "Canonical signing", the
///    frame type as `messageType`, `callId` as `messageId`) → else `AUTH_FAILED`;
/// 4. `call_initiate` only: the callee exists → else `NOT_FOUND`, is not banned → else `FORBIDDEN`;
/// 5. one atomic store step: the CALL rate limit → else `RATE_LIMITED`; then
///    - `call_initiate`: the `callId` is new → else `FORBIDDEN`; if the callee blocked the
///      caller (docs/protocol.md "Blocking"), nothing more: the call rings for the caller
///      alone, unseen, until it times out (no offer, no `call_ringing`, no push); else the
///      call rings until the ring deadline and the offer is held for the callee's login and
///      goes to its socket if one looks live (with a confirmation deadline,
///      `Limits.callConfirmTimeoutMillis`), else a VoIP push is sent now (`WakeUps.ring`,
///      never coalesced); a kept `call_end` wakes its offline party (`WakeUps.wake`);
///    - the others: the call exists and has not ended → else `NOT_FOUND`; `from` and `to` are
///      its two parties (and only the callee answers) → else `FORBIDDEN`; the transition is
///      applied and the frame routed to `to`.
/// Success has no reply. The caller hears `call_ringing` only when the callee's device
/// confirms the offer (`confirm`: `call_received`, contract §15), at once or after a later
/// login. The sweep (every node, `Limits.callSweepIntervalMillis`) does the rest, each item
/// claimed in Redis by exactly one node: an offer on a live-looking socket that nobody
/// confirmed by its deadline → the call push as for an offline callee (the offer stays held
/// for the next login; claimed for a lease and settled once the push is handed over, so a
/// node dying in between leaves it to the next sweep after the lease); nobody answering
/// within the ring timeout → `call_end {reason:"timeout"}` to both.
public final class CallService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let limits: Limits
    private let store: CallStore
    private let router: MessageRouter
    private let recipients: RecipientDirectory
    private let rateLimiter: RateLimiter
    private let verifier: SignatureVerifier
    /// Push: a VoIP push to an offline or unconfirmed callee, a wake-up for a kept `call_end`;
    /// nil: push is off.
    private let wakeUps: WakeUps?
    private let log: Log
    private let now: () -> Int64
    private let setups: [CallSetupResult: Counter]
    private let unconfirmed: Counter?
    /// The signals of one call are applied in the order they arrived: while one is on its way
    /// (an offer's callee look-up is a PostgreSQL round trip on a cold cache; on a Redis
    /// Cluster every signal is several one-slot steps, which the next signal's steps could
    /// overtake), the later ones of that `callId` wait here. A key is a call with a signal in
    /// flight; its value, the signals behind it (at most `maxWaitingSignals`).
    private var inFlight: [CanonicalUUID: [() -> Void]] = [:]
    /// More signals than this waiting behind one call is a flood, not ICE trickling: refused.
    static let maxWaitingSignals = 64

    public init(limits: Limits, store: CallStore, router: MessageRouter, recipients: RecipientDirectory,
                rateLimiter: RateLimiter, verifier: SignatureVerifier, wakeUps: WakeUps?, log: Log,
                metrics: WhisperMetrics? = nil, now: @escaping () -> Int64) {
        self.limits = limits
        self.store = store
        self.router = router
        self.recipients = recipients
        self.rateLimiter = rateLimiter
        self.verifier = verifier
        self.wakeUps = wakeUps
        self.log = log
        self.now = now
        var setups: [CallSetupResult: Counter] = [:]
        if let metrics {
            for result in CallSetupResult.allCases { setups[result] = metrics.callSetup.labels(result.rawValue) }
        }
        self.setups = setups
        self.unconfirmed = metrics?.callUnconfirmed
    }

    // MARK: Signals

    public func signal(_ signal: CallSignalPayload, session: SessionRecord, client: ClientRef,
                       completion: @escaping Completion<Void>) {
        if let refusal = verifier.refusal(from: signal.from, timestamp: signal.timestamp, signature: signal.signature,
                                          signedBytes: signal.signedBytes, session: session,
                                          skewMillis: limits.timestampSkewMillis, nowMillis: now()) {
            return completion(.failure(refusal))
        }

        let callId = signal.callId
        let apply = { [self] in
            self.apply(signal, client: client) { [self] result in
                completion(result)
                applyNext(callId)
            }
        }
        guard var waiting = inFlight[callId] else {
            inFlight[callId] = []
            return apply()
        }
        guard waiting.count < Self.maxWaitingSignals else {
            return completion(.failure(.rateLimited(retryAfterMs: 1_000)))
        }
        waiting.append(apply)
        inFlight[callId] = waiting
    }

    /// The signal of `callId` in flight is done: the next one waiting goes, or the call has none in flight.
    private func applyNext(_ callId: CanonicalUUID) {
        guard var waiting = inFlight[callId], !waiting.isEmpty else {
            inFlight.removeValue(forKey: callId)
            return
        }
        let next = waiting.removeFirst()
        inFlight[callId] = waiting
        next()
    }

    /// Step 4 (an offer) and 5.
    private func apply(_ signal: CallSignalPayload, client: ClientRef, _ completion: @escaping Completion<Void>) {
        let charge = rateLimiter.charge(.call, subjects: [.identity(signal.from.string), .ip(client.ip)])
        guard signal.kind == .initiate else {
            let stored = CallSignal(kind: signal.kind, from: signal.from, to: signal.to, callId: signal.callId,
                                    frame: signal.forwardedFrame, rateLimit: charge)
            return store.signal(stored) { [self] in finish(signal, $0, client: client, completion) }
        }
        recipients.status(of: signal.to) { [self] result in
            switch result {
            case .failure(let error): return completion(.failure(.storage(error)))
            case .success(.unknown): return completion(.failure(.notFound("unknown callee")))
            case .success(.banned): return completion(.failure(.forbidden("callee is banned")))
            case .success(.active): break
            }
            let offer = CallOffer(caller: signal.from, callee: signal.to, callId: signal.callId, callIdText: signal.callIdText,
                                  frame: signal.forwardedFrame, rateLimit: charge)
            store.initiate(offer) { [self] in finish(signal, $0, client: client, completion) }
        }
    }

    /// Step 5's answer: routes a local delivery, counts the setup, asks for a wake-up.
    private func finish(_ signal: CallSignalPayload, _ result: Result<CallStoreOutcome, StoreError>, client: ClientRef,
                        _ completion: Completion<Void>) {
        switch result {
        case .failure(let error):
            completion(.failure(.storage(error)))
        case .success(.rateLimited(let retryAfterMs)):
            rateLimiter.refused(.call)
            completion(.failure(.rateLimited(retryAfterMs: max(1, retryAfterMs))))
        case .success(.unknownCall):
            completion(.failure(.notFound("unknown call")))
        case .success(.notAParty):
            completion(.failure(.forbidden(signal.kind == .initiate ? "callId already in use" : "not a party of this call")))
        case .success(.dropped(let setup)):
            // The callee blocked the caller: the caller hears nothing, as from a phone that does not pick up.
            if let setup { setups[setup]?.increment() }
            if log.isEnabled(.debug) {
                log.debug("call_signal_dropped", connId: client.connection.connection, whisperId: signal.from.string,
                          ["type": .string(signal.kind.rawValue), "callId": .string(signal.callId.string),
                           "to": .string(signal.to.string)])
            }
            completion(.success(()))
        case .success(.routed(let routing, let setup)):
            if let setup { setups[setup]?.increment() }
            // A `call_end` is kept for an offline party; other signals are only worth their moment.
            let kind: DeliveryKind = signal.kind == .end ? .event : .signal
            if case .local(let route) = routing {
                router.deliver(signal.forwardedFrame, to: signal.to, at: route, kind: kind, receivedAtMicros: 0)
            }
            if routing == .offline {
                if signal.kind == .initiate { wakeUps?.ring(signal.to, callIdText: signal.callIdText) }
                if signal.kind == .end { wakeUps?.wake(signal.to) }
            }
            // Caller beside callee draws the social graph: debug only (docs/security.md).
            if log.isEnabled(.debug), signal.kind != .iceCandidate {
                log.debug("call_signal", connId: client.connection.connection, whisperId: signal.from.string,
                         ["type": .string(signal.kind.rawValue), "callId": .string(signal.callId.string),
                          "to": .string(signal.to.string), "ciphertextBytes": .int(signal.ciphertextByteCount),
                          "routing": .string(routing.logName), "setup": .string(setup?.rawValue ?? "")])
            }
            completion(.success(()))
        }
    }

    // MARK: Confirmation

    /// `call_received`: the session's identity confirms the offer of `callId` reached it →
    /// the first time, the caller hears `call_ringing`; a repeat (or an answered call) does
    /// nothing. Not the callee → `FORBIDDEN`; unknown, ended or unseen (blocked) call → `NOT_FOUND`.
    public func confirm(_ callId: CanonicalUUID, session: SessionRecord, client: ClientRef,
                        completion: @escaping Completion<Void>) {
        rateLimiter.check(.call, subjects: [.identity(session.whisperId.string), .ip(client.ip)]) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            confirmChecked(callId, session: session, client: client, completion: completion)
        }
    }

    private func confirmChecked(_ callId: CanonicalUUID, session: SessionRecord, client: ClientRef,
                                completion: @escaping Completion<Void>) {
        store.confirm(callId, callee: session.whisperId) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(.unknownCall):
                completion(.failure(.notFound("unknown call")))
            case .success(.notTheCallee):
                completion(.failure(.forbidden("not the callee of this call")))
            case .success(.repeated):
                completion(.success(()))
            case .success(.confirmed(let caller, let routing, let frame)):
                if case .local(let route) = routing {
                    router.deliver(frame, to: caller, at: route, kind: .signal, receivedAtMicros: 0)
                }
                if log.isEnabled(.debug) {
                    log.debug("call_confirmed", connId: client.connection.connection, whisperId: session.whisperId.string,
                              ["callId": .string(callId.string), "routing": .string(routing.logName)])
                }
                completion(.success(()))
            }
        }
    }

    // MARK: Login and timeouts

    /// `user` has just come online: answers the held offers (each followed by the caller's
    /// candidates) for its socket; the caller hears `call_ringing` when the user confirms one.
    public func heldCalls(for user: WhisperID, completion: @escaping Completion<[[UInt8]]>) {
        store.heldCalls(for: user) { result in completion(result.mapError { .storage($0) }) }
    }

    /// One sweep (every node runs it every `Limits.callSweepIntervalMillis`): pushes callees
    /// that did not confirm an offer in time, ends rung-out calls; answers how many calls this
    /// node ended.
    public func sweep(completion: @escaping Completion<Int>) {
        store.sweep { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let sweep):
                for offer in sweep.unconfirmed {
                    unconfirmed?.increment()
                    guard let wakeUps else {
                        settle(offer)
                        continue
                    }
                    wakeUps.ring(offer.callee, callIdText: offer.callIdText) { [self] handed in
                        if handed { settle(offer) }
                    }
                }
                setups[.timeout]?.increment(by: UInt64(sweep.ended.count))
                for call in sweep.ended + sweep.finished {
                    for party in call.local {
                        router.deliver(call.frame, to: party.user, at: party.route, kind: call.kind, receivedAtMicros: 0)
                    }
                }
                if !sweep.unconfirmed.isEmpty, log.isEnabled(.info) {
                    log.info("calls_unconfirmed", ["count": .int(sweep.unconfirmed.count)])
                }
                if !sweep.ended.isEmpty, log.isEnabled(.info) { log.info("calls_timed_out", ["count": .int(sweep.ended.count)]) }
                completion(.success(sweep.ended.count))
            }
        }
    }

    /// An unconfirmed offer's push handed over: its claim is dropped (a failure leaves it to
    /// lapse, and a later sweep pushes again).
    private func settle(_ offer: UnconfirmedOffer) {
        store.settle(offer) { [log] result in
            if case .failure(let error) = result {
                log.warn("call_settle_failed", ["reason": .string(error.description)])
            }
        }
    }
}
