import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Calls on a Redis Cluster, in steps of one slot each (`CallStepScripts` says why a call is
/// neither lost nor rung twice when a node dies between two). The outcomes are the single
/// scripts', so the service cannot tell the two apart. Steps run one after the other: calls
/// are rare, a few round trips each is cheap.
extension RedisCallStore {
    // MARK: Offers

    /// The CALL charge, the ring deadline in `calls:deadlines`, the callee's step (block check,
    /// hold), the call's step, then the offer routed — with a confirmation deadline written
    /// before it goes out, and taken back when nobody received it.
    func initiateInSteps(_ offer: CallOffer, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        charge(offer.rateLimit) { [self] charged in
            switch charged {
            case .failure(let error): return completion(.failure(error))
            case .success(let refused?): return completion(.success(refused))
            case .success(nil): break
            }
            schedule(offer.callId, in: keys.callDeadlines, after: settings.ringTimeoutMillis, mode: "add") { [self] scheduled in
                if case .failure(let error) = scheduled { return completion(.failure(error)) }
                ringCallee(offer) { [self] rang in
                    switch rang {
                    case .failure(let error): completion(.failure(error))
                    case .success(let route): open(offer, route: route, completion: completion)
                    }
                }
            }
        }
    }

    /// nil: the callee blocked the caller; else its route ('' none).
    private func ringCallee(_ offer: CallOffer, completion: @escaping StoreCompletion<String?>) {
        let call = RedisScriptCall(CallStepScripts.ring, keys: { (name: CallStepScripts.RingKey) in
            switch name {
            case .held: keys.heldCalls(offer.callee)
            case .blocked: keys.blocked(offer.callee)
            case .route: keys.route(offer.callee)
            }
        }, arguments: { (name: CallStepScripts.RingArgument) in
            switch name {
            case .caller: Array(offer.caller.string.utf8)
            case .callId: Array(offer.callId.string.utf8)
            case .ringTimeout: Self.text(settings.ringTimeoutMillis)
            case .ringingTTL: Self.text(settings.ringingTTLMillis)
            }
        })
        redis.evalScript(call, retryOnce: true) { result in
            completion(RedisReplies.tagged(result) { status, items -> String?? in
                if status == 1 { return .some(nil) }
                guard items.count == 2, let route = items[1].string else { return nil }
                return .some(route)
            })
        }
    }

    private func open(_ offer: CallOffer, route: String?, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        let call = RedisScriptCall(CallStepScripts.open, keys: { (_: CallStepScripts.OpenKey) in keys.call(offer.callId) },
                                   arguments: { (name: CallStepScripts.OpenArgument) in
            switch name {
            case .caller: Array(offer.caller.string.utf8)
            case .callee: Array(offer.callee.string.utf8)
            case .spelt: Array(offer.callIdText.utf8)
            case .offer: offer.frame
            case .ringTimeout: Self.text(settings.ringTimeoutMillis)
            case .ringingTTL: Self.text(settings.ringingTTLMillis)
            case .blocked: Array((route == nil ? "1" : "0").utf8)
            case .at: Array((route ?? "").utf8)
            }
        })
        redis.evalScript(call) { [self] (result: Result<RedisValue, RedisError>) in
            let opened = RedisReplies.tagged(result) { status, _ -> Int64? in status }
            switch opened {
            case .failure(let error): return completion(.failure(error))
            case .success(2): return completion(.success(.notAParty))
            case .success(4): return completion(.success(.dropped(setup: nil)))
            case .success: break
            }
            guard let route, !route.isEmpty else { return completion(.success(.routed(.offline, setup: nil))) }
            // Unconfirmed by this deadline, the callee is pushed — even if this node dies now.
            schedule(offer.callId, in: keys.callConfirmDeadlines, after: settings.confirmTimeoutMillis, mode: "set") { [self] scheduled in
                if case .failure(let error) = scheduled { return completion(.failure(error)) }
                routed(offer.frame, to: offer.callee, route: route) { [self] routing in
                    guard case .success(.offline) = routing else {
                        return completion(routing.map { .routed($0, setup: nil) })
                    }
                    // Nobody received it: the service pushes now, the sweep must not again.
                    redis.send([Array("ZREM".utf8), keys.callConfirmDeadlines, Array(offer.callId.string.utf8)]) { _ in
                        completion(.success(.routed(.offline, setup: nil)))
                    }
                }
            }
        }
    }

    // MARK: Signals

    /// The signal stored (`storeSignal`), then the frame routed to `to` (a hangup kept for it
    /// offline) and the outbox cleared.
    func signalInSteps(_ signal: CallSignal, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        storeSignal(signal) { [self] stored in
            switch stored {
            case .failure(let error): completion(.failure(error))
            case .success(.stopped(let outcome)): completion(.success(outcome))
            case .success(.route(let setup, let number)):
                deliver(signal.frame, to: signal.to, event: signal.kind == .end) { [self] routing in
                    guard case .success(let routing) = routing else { return completion(routing.map { .routed($0, setup: setup) }) }
                    clearOutbox(signal.callId, number: number) { completion(.success(.routed(routing, setup: setup))) }
                }
            }
        }
    }

    /// What the call's step of a signal decided.
    package enum SignalStep: Sendable {
        case stopped(CallStoreOutcome)
        /// Route the frame to `to`; then clear outbox `number` (0: none).
        case route(CallSetupResult?, number: Int64)
    }

    /// A signal up to its call's step: the CALL charge, for an answer or a hangup a visit of
    /// the sweep at most `outboxGraceMillis` away (so the sweep delivers it if this node dies
    /// now — a test stops here to show that), then the call's step.
    package func storeSignal(_ signal: CallSignal, completion: @escaping StoreCompletion<SignalStep>) {
        charge(signal.rateLimit) { [self] charged in
            switch charged {
            case .failure(let error): return completion(.failure(error))
            case .success(let refused?): return completion(.success(.stopped(refused)))
            case .success(nil): break
            }
            guard signal.kind == .answer || signal.kind == .end else { return signalCallStep(signal, completion: completion) }
            schedule(signal.callId, in: keys.callDeadlines, after: settings.outboxGraceMillis, mode: "sooner") { [self] scheduled in
                if case .failure(let error) = scheduled { return completion(.failure(error)) }
                signalCallStep(signal, completion: completion)
            }
        }
    }

    private func signalCallStep(_ signal: CallSignal, completion: @escaping StoreCompletion<SignalStep>) {
        let call = RedisScriptCall(CallStepScripts.signal, keys: { (name: CallStepScripts.SignalKey) in
            switch name {
            case .call: keys.call(signal.callId)
            case .candidates: keys.callCandidates(signal.callId)
            }
        }, arguments: { (name: CallStepScripts.SignalArgument) in
            switch name {
            case .kind: Array(Self.scriptKind(signal.kind).utf8)
            case .from: Array(signal.from.string.utf8)
            case .to: Array(signal.to.string.utf8)
            case .frame: signal.frame
            case .answeredTTL: Self.text(settings.answeredTTLMillis)
            case .endedTTL: Self.text(settings.endedTTLMillis)
            case .maxCandidates: Self.text(Int64(settings.maxHeldCandidates))
            }
        })
        redis.evalScript(call) { result in
            completion(RedisReplies.tagged(result) { status, items -> SignalStep? in
                let setup = items.count > 1 ? items[1].string.flatMap(CallSetupResult.init(rawValue:)) : nil
                switch status {
                case 1: return .stopped(.unknownCall)
                case 2: return .stopped(.notAParty)
                case 4: return .stopped(.dropped(setup: setup))
                default:
                    guard items.count == 3, let number = items[2].integer else { return nil }
                    return .route(setup, number: number)
                }
            })
        }
    }

    private func clearOutbox(_ callId: CanonicalUUID, number: Int64, completion: @escaping () -> Void) {
        guard number > 0 else { return completion() }
        let call = RedisScriptCall(CallStepScripts.clear, keys: { (_: CallStepScripts.ClearKey) in keys.call(callId) },
                                   arguments: { (_: CallStepScripts.ClearArgument) in Self.text(number) })
        // Left uncleared (a lost link), the sweep delivers the frame once more: nothing to add.
        redis.evalScript(call, retryOnce: true) { (_: Result<RedisValue, RedisError>) in completion() }
    }

    // MARK: Confirmation

    /// `storeConfirmation`, then `call_ringing` routed to the caller and the outbox cleared.
    func confirmInSteps(_ callId: CanonicalUUID, callee: WhisperID, completion: @escaping StoreCompletion<CallConfirmation>) {
        storeConfirmation(callId, callee: callee) { [self] stored in
            switch stored {
            case .failure(let error): completion(.failure(error))
            case .success(.stopped(let settled)): completion(.success(settled))
            case .success(.route(let caller, let frame, let number)):
                deliver(frame, to: caller, event: false) { [self] routing in
                    guard case .success(let routing) = routing else {
                        return completion(routing.map { .confirmed(caller: caller, routing: $0, frame: frame) })
                    }
                    clearOutbox(callId, number: number) { completion(.success(.confirmed(caller: caller, routing: routing, frame: frame))) }
                }
            }
        }
    }

    /// What the call's step of a confirmation decided.
    package enum ConfirmationStep: Sendable {
        case stopped(CallConfirmation)
        /// Route `call_ringing` (`frame`) to `caller`; then clear outbox `number`.
        case route(caller: WhisperID, frame: [UInt8], number: Int64)
    }

    /// A confirmation up to its call's step: a visit of the sweep at most `outboxGraceMillis`
    /// away, then the call's step (`rung`, `call_ringing` in the outbox) — a test stops here
    /// to show that the sweep sends `call_ringing` when this node dies now.
    package func storeConfirmation(_ callId: CanonicalUUID, callee: WhisperID, completion: @escaping StoreCompletion<ConfirmationStep>) {
        schedule(callId, in: keys.callDeadlines, after: settings.outboxGraceMillis, mode: "sooner") { [self] scheduled in
            if case .failure(let error) = scheduled { return completion(.failure(error)) }
            let call = RedisScriptCall(CallStepScripts.confirm, keys: { (_: CallStepScripts.ConfirmKey) in keys.call(callId) },
                                       arguments: { (_: CallStepScripts.ConfirmArgument) in Array(callee.string.utf8) })
            redis.evalScript(call) { result in
                completion(RedisReplies.tagged(result) { status, items -> ConfirmationStep? in
                    switch status {
                    case 1: return .stopped(.unknownCall)
                    case 2: return .stopped(.notTheCallee)
                    case 5: return .stopped(.repeated)
                    default:
                        guard items.count == 4, let caller = items[1].string.flatMap(WhisperID.validate), let frame = items[2].bytes,
                              let number = items[3].integer
                        else { return nil }
                        return .route(caller: caller, frame: frame, number: number)
                    }
                })
            }
        }
    }

    // MARK: Logins

    /// The user's step (its route, the held ids), each call's step (reads), the user's step
    /// again (drops what no longer rings for it, and the calls of callers it blocks), then each
    /// call's step (`at`, or from now on a `blk` call) and the new confirmation deadlines.
    func heldCallsInSteps(for user: WhisperID, completion: @escaping StoreCompletion<[[UInt8]]>) {
        let call = RedisScriptCall(CallStepScripts.held, keys: CallStepScripts.HeldKey.allCases.map { name in
            switch name {
            case .held: keys.heldCalls(user)
            case .route: keys.route(user)
            }
        }, arguments: [])
        redis.evalScript(call, retryOnce: true) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): completion(.failure(error))
            case .success(let value):
                guard let items = value.array?.compactMap(\.string), let here = items.first else {
                    return completion(.failure(RedisReplies.unexpected(value)))
                }
                let ids = items.dropFirst().compactMap(CanonicalUUID.init)
                guard !ids.isEmpty else { return completion(.success([])) }
                readOffers(ids, for: user, here: here, completion: completion)
            }
        }
    }

    private func readOffers(_ ids: [CanonicalUUID], for user: WhisperID, here: String, completion: @escaping StoreCompletion<[[UInt8]]>) {
        let join = CallStepJoin<HeldOffer?>(count: ids.count)
        for (index, id) in ids.enumerated() {
            let call = RedisScriptCall(CallStepScripts.offer, keys: { (name: CallStepScripts.OfferKey) in
                switch name {
                case .call: keys.call(id)
                case .candidates: keys.callCandidates(id)
                }
            }, arguments: { (name: CallStepScripts.OfferArgument) in
                switch name {
                case .user: Array(user.string.utf8)
                case .here: Array(here.utf8)
                }
            })
            redis.evalScript(call, retryOnce: true) { result in
                join.done(index, RedisReplies.tagged(result) { status, items -> HeldOffer?? in
                    switch status {
                    case 0: return .some(nil)
                    case 1: return HeldOffer(id: id, caller: "", rung: true, frames: [])
                    default:
                        guard items.count >= 4, let caller = items[1].string, let rung = items[2].string else { return nil }
                        return HeldOffer(id: id, caller: caller, rung: rung == "1", frames: items.dropFirst(3).compactMap(\.bytes))
                    }
                })
            }
        }
        join.finished { [self] read in
            switch read {
            case .failure(let error): completion(.failure(error))
            case .success(let offers): sortOffers(offers.compactMap { $0 }, for: user, here: here, completion: completion)
            }
        }
    }

    /// A held call's state at a login: `caller` '' when it no longer rings for the user.
    private struct HeldOffer {
        let id: CanonicalUUID
        let caller: String
        let rung: Bool
        let frames: [[UInt8]]
    }

    private func sortOffers(_ offers: [HeldOffer], for user: WhisperID, here: String, completion: @escaping StoreCompletion<[[UInt8]]>) {
        guard !offers.isEmpty else { return completion(.success([])) }
        let call = RedisScriptCall(CallStepScripts.sort, keys: CallStepScripts.SortKey.allCases.map { name in
            switch name {
            case .held: keys.heldCalls(user)
            case .blocked: keys.blocked(user)
            }
        }, arguments: offers.flatMap { [Array($0.id.string.utf8), Array($0.caller.utf8)] })
        redis.evalScript(call, retryOnce: true) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): completion(.failure(error))
            case .success(let value):
                guard let refused = value.array?.compactMap(\.string) else { return completion(.failure(RedisReplies.unexpected(value))) }
                let ringing = offers.filter { !$0.caller.isEmpty }
                take(ringing, blocked: Set(refused), here: here) { taken in
                    completion(taken.map { ringing.filter { !refused.contains($0.id.string) }.flatMap(\.frames) })
                }
            }
        }
    }

    /// Each offer's call step, and a confirmation deadline for those not confirmed yet.
    private func take(_ offers: [HeldOffer], blocked: Set<String>, here: String, completion: @escaping StoreCompletion<Void>) {
        let sent = offers.filter { !blocked.contains($0.id.string) && !$0.rung }
        let join = CallStepJoin<Void>(count: offers.count + sent.count)
        for (index, offer) in offers.enumerated() {
            let call = RedisScriptCall(CallStepScripts.take, keys: { (name: CallStepScripts.TakeKey) in
                switch name {
                case .call: keys.call(offer.id)
                case .candidates: keys.callCandidates(offer.id)
                }
            }, arguments: { (name: CallStepScripts.TakeArgument) in
                switch name {
                case .blocked: Array((blocked.contains(offer.id.string) ? "1" : "0").utf8)
                case .here: Array(here.utf8)
                }
            })
            redis.evalScript(call, retryOnce: true) { result in join.done(index, RedisReplies.value(result).map { _ in () }) }
        }
        for (index, offer) in sent.enumerated() {
            schedule(offer.id, in: keys.callConfirmDeadlines, after: settings.confirmTimeoutMillis, mode: "set") { result in
                join.done(offers.count + index, result)
            }
        }
        join.finished { completion($0.map { _ in () }) }
    }

    // MARK: Sweeps

    /// Offers past their confirmation deadline, then the calls due in `calls:deadlines`, each
    /// claimed for a lease; a due call is visited by its call's step, an offer still unconfirmed
    /// is left claimed until its push is settled (`settle`), any other offer's entry dropped.
    func sweepInSteps(completion: @escaping StoreCompletion<CallSweep>) {
        claim(keys.callConfirmDeadlines, lease: settings.claimLeaseMillis) { [self] claimed in
            switch claimed {
            case .failure(let error): completion(.failure(error))
            case .success(let claimed):
                unconfirmed(claimed) { [self] unconfirmed in
                    switch unconfirmed {
                    case .failure(let error): completion(.failure(error))
                    case .success(let unconfirmed): visitDue(unconfirmed, completion: completion)
                    }
                }
            }
        }
    }

    private func unconfirmed(_ claimed: [(id: CanonicalUUID, score: String)], completion: @escaping StoreCompletion<[UnconfirmedOffer]>) {
        let join = CallStepJoin<UnconfirmedOffer?>(count: claimed.count)
        for (index, entry) in claimed.enumerated() {
            redis.send([Array("HMGET".utf8), keys.call(entry.id)] + ["callee", "phase", "rung", "cid", "blk"].map { Array($0.utf8) }) {
                [self] result in
                switch RedisReplies.value(result) {
                case .failure(let error): join.done(index, .failure(error))
                case .success(let value):
                    if let s = value.array, s.count == 5, s[1].string == "r", s[2].string != "1", s[4].string == nil,
                       let callee = s[0].string.flatMap(WhisperID.validate), let spelt = s[3].string {
                        return join.done(index, .success(UnconfirmedOffer(callee: callee, callIdText: spelt, callId: entry.id,
                                                                          claim: entry.score)))
                    }
                    // Confirmed, answered or over: nobody is pushed.
                    settle(entry.id, claimed: entry.score, next: nil, in: keys.callConfirmDeadlines) { join.done(index, $0.map { nil }) }
                }
            }
        }
        join.finished { completion($0.map { $0.compactMap { $0 } }) }
    }

    private func visitDue(_ unconfirmed: [UnconfirmedOffer], completion: @escaping StoreCompletion<CallSweep>) {
        claim(keys.callDeadlines, lease: settings.claimLeaseMillis) { [self] claimed in
            switch claimed {
            case .failure(let error): return completion(.failure(error))
            case .success(let claimed):
                let join = CallStepJoin<Visited>(count: claimed.count)
                for (index, entry) in claimed.enumerated() {
                    visit(entry.id, claimed: entry.score) { join.done(index, $0) }
                }
                join.finished { visited in
                    completion(visited.map { visited in
                        CallSweep(ended: visited.compactMap(\.ended), unconfirmed: unconfirmed, finished: visited.compactMap(\.finished))
                    })
                }
            }
        }
    }

    /// The sweep's claim of the calls due, alone (a test stops here to show a node that dies
    /// right after it: its claim lapses after the lease, and the next sweep finishes the calls).
    package func claimDueCalls(completion: @escaping StoreCompletion<[CanonicalUUID]>) {
        claim(keys.callDeadlines, lease: settings.claimLeaseMillis) { completion($0.map { $0.map(\.id) }) }
    }

    /// What a sweep's visit of one call did.
    private struct Visited {
        var ended: RangOutCall?
        var finished: RangOutCall?
    }

    /// `again`: after delivering an outbox, visit the call once more — a call whose
    /// `call_ringing` was in it still rings, and its ring deadline must stay scheduled.
    private func visit(_ id: CanonicalUUID, claimed: String, again: Bool = true, completion: @escaping StoreCompletion<Visited>) {
        let call = RedisScriptCall(CallStepScripts.visit, keys: { (name: CallStepScripts.VisitKey) in
            switch name {
            case .call: keys.call(id)
            case .candidates: keys.callCandidates(id)
            }
        }, arguments: { (name: CallStepScripts.VisitArgument) in
            switch name {
            case .endedTTL: Self.text(settings.endedTTLMillis)
            case .grace: Self.text(settings.outboxGraceMillis)
            }
        })
        redis.evalScript(call) { [self] result in
            let step = RedisReplies.tagged(result) { status, items -> VisitStep? in
                switch status {
                case 0: return .done
                case 1: return items.count == 2 ? items[1].integer.map { .later($0) } : nil
                default:
                    guard items.count == 5, let number = items[1].integer, let frame = items[2].bytes, let kind = items[3].string,
                          let users = items[4].string?.split(separator: " ").compactMap({ WhisperID.validate(String($0)) })
                    else { return nil }
                    return .deliver(number: number, frame: frame, event: kind == "e", users: users, timedOut: status == 3)
                }
            }
            switch step {
            case .failure(let error): completion(.failure(error))
            case .success(.done): settle(id, claimed: claimed, next: nil) { completion($0.map { Visited() }) }
            case .success(.later(let when)): settle(id, claimed: claimed, next: when) { completion($0.map { Visited() }) }
            case .success(.deliver(let number, let frame, let event, let users, let timedOut)):
                deliverAll(frame, to: users, event: event) { [self] delivered in
                    guard case .success(let local) = delivered else { return completion(delivered.map { _ in Visited() }) }
                    let call = RangOutCall(frame: frame, local: local, kind: event ? .event : .signal)
                    let visited = timedOut ? Visited(ended: call) : Visited(finished: call)
                    clearOutbox(id, number: number) { [self] in
                        guard again else { return settle(id, claimed: claimed, next: nil) { completion($0.map { visited }) } }
                        visit(id, claimed: claimed, again: false) { second in
                            completion(second.map { Visited(ended: visited.ended ?? $0.ended, finished: visited.finished ?? $0.finished) })
                        }
                    }
                }
            }
        }
    }

    private enum VisitStep {
        case done
        case later(Int64)
        case deliver(number: Int64, frame: [UInt8], event: Bool, users: [WhisperID], timedOut: Bool)
    }

    /// Routes `frame` to every user; answers those whose socket is on this node.
    private func deliverAll(_ frame: [UInt8], to users: [WhisperID], event: Bool,
                            completion: @escaping StoreCompletion<[(user: WhisperID, route: LiveRoute)]>) {
        let join = CallStepJoin<(user: WhisperID, route: LiveRoute)?>(count: users.count)
        for (index, user) in users.enumerated() {
            deliver(frame, to: user, event: event) { routing in
                join.done(index, routing.map { routing in
                    if case .local(let route) = routing { return (user, route) }
                    return nil
                })
            }
        }
        join.finished { completion($0.map { $0.compactMap { $0 } }) }
    }

    // MARK: Steps shared

    /// The CALL rate limit, one step per subject: nil when it passed.
    private func charge(_ charge: RateLimitCharge, completion: @escaping StoreCompletion<CallStoreOutcome?>) {
        RedisRateLimitStore(redis: redis, keys: keys).hit(charge.buckets, nonce: charge.nonce) { decision in
            completion(decision.map { decision in
                if case .limited(let wait) = decision { return .rateLimited(retryAfterMs: wait) }
                return nil
            })
        }
    }

    private func schedule(_ id: CanonicalUUID, in deadlines: [UInt8], after delay: Int64, mode: String,
                          completion: @escaping StoreCompletion<Void>) {
        let call = RedisScriptCall(CallStepScripts.schedule, keys: { (_: CallStepScripts.ScheduleKey) in deadlines },
                                   arguments: { (name: CallStepScripts.ScheduleArgument) in
            switch name {
            case .callId: Array(id.string.utf8)
            case .delay: Self.text(delay)
            case .mode: Array(mode.utf8)
            }
        })
        redis.evalScript(call, retryOnce: true) { completion(RedisReplies.value($0).map { _ in () }) }
    }

    /// The entries due in `deadlines`, with the score each now holds.
    private func claim(_ deadlines: [UInt8], lease: Int64, completion: @escaping StoreCompletion<[(id: CanonicalUUID, score: String)]>) {
        let call = RedisScriptCall(CallStepScripts.claim, keys: { (_: CallStepScripts.ClaimKey) in deadlines },
                                   arguments: { (name: CallStepScripts.ClaimArgument) in
            switch name {
            case .lease: Self.text(lease)
            case .batch: Self.text(Int64(settings.sweepBatch))
            }
        })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array?.compactMap(\.string), items.count % 2 == 0 else {
                    return .failure(RedisReplies.unexpected(value))
                }
                return .success(stride(from: 0, to: items.count, by: 2).compactMap { index in
                    CanonicalUUID(items[index]).map { ($0, items[index + 1]) }
                })
            })
        }
    }

    /// A claimed entry of `deadlines` (`calls:deadlines` unless named) dropped (`next` nil) or
    /// rescheduled, only while it holds the claim's score.
    func settle(_ id: CanonicalUUID, claimed: String, next: Int64?, in deadlines: [UInt8]? = nil,
                completion: @escaping StoreCompletion<Void>) {
        let deadlines = deadlines ?? keys.callDeadlines
        let call = RedisScriptCall(CallStepScripts.settle, keys: { (_: CallStepScripts.SettleKey) in deadlines },
                                   arguments: { (name: CallStepScripts.SettleArgument) in
            switch name {
            case .callId: Array(id.string.utf8)
            case .claimed: Array(claimed.utf8)
            case .next: next.map(Self.text) ?? []
            }
        })
        redis.evalScript(call, retryOnce: true) { completion(RedisReplies.value($0).map { _ in () }) }
    }

    /// Routes a frame to `user`: an event through its step (kept when nobody holds it or the
    /// publish reaches nobody, `RedisRouter.deliverEvent`); a signal by its route, published to
    /// another node (reaching nobody: offline, dropped).
    private func deliver(_ frame: [UInt8], to user: WhisperID, event: Bool, completion: @escaping StoreCompletion<Routing>) {
        if event { return router.deliverEvent(frame, to: user, completion: completion) }
        redis.send([Array("GET".utf8), keys.route(user)]) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): completion(.failure(error))
            case .success(let value): routed(frame, to: user, route: value.string ?? "offline", completion: completion)
            }
        }
    }

    /// A signal's route text ('offline' or '' for none).
    private func routed(_ frame: [UInt8], to user: WhisperID, route: String, completion: @escaping StoreCompletion<Routing>) {
        guard let live = LiveRoute(text: route) else { return completion(.success(.offline)) }
        if live.node == node { return completion(.success(.local(live))) }
        router.publish(frame, to: user, at: live, kind: "s") { received in completion(.success(received ? .remote : .offline)) }
    }
}

/// Concurrent steps joined: their results in order, or the first failure.
private final class CallStepJoin<T> {
    private var results: [T?]
    private var remaining: Int
    private var failure: StoreError?
    private var finish: ((Result<[T], StoreError>) -> Void)?

    init(count: Int) {
        results = Array(repeating: nil, count: count)
        remaining = count
    }

    func done(_ index: Int, _ result: Result<T, StoreError>) {
        switch result {
        case .success(let value): results[index] = value
        case .failure(let error): failure = failure ?? error
        }
        remaining -= 1
        complete()
    }

    func finished(_ finish: @escaping (Result<[T], StoreError>) -> Void) {
        self.finish = finish
        complete()
    }

    private func complete() {
        guard remaining == 0, let finish else { return }
        self.finish = nil
        if let failure { return finish(.failure(failure)) }
        finish(.success(results.compactMap { $0 }))
    }
}
