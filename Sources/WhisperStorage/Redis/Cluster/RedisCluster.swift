import WhisperOps
import WhisperRuntime

/// Redis Cluster access for one event loop: the slot map, one `RedisLink` per primary, and the
/// routing of each command to the primary that serves its slot. Loop-confined; `RedisClient`
/// owns one in cluster mode (`RedisConfiguration.cluster`) and keeps its one-link path for a
/// standalone Redis.
///
/// - **Map:** `CLUSTER SLOTS` from any reachable seed at start, later from any known node (the
///   primaries' links first). A link is opened to every primary of the map, before any command
///   needs it; links to nodes that stopped being primaries are closed.
/// - **Pipelining:** a command is appended to its primary's connection at once, so commands of
///   one loop iteration still leave in one write per connection, and replies on a connection
///   come back in order (commands on one key keep their order).
/// - **`MOVED slot host:port`:** the slot is moved in the map at once, a full refresh is
///   scheduled (at most one in flight, at most every `refreshIntervalNanos`), and the command
///   is sent again to the named node. **`ASK slot host:port`:** `ASKING` and the command are
///   pipelined to the named node; the map is left alone (the slot is still migrating).
///   At most `maximumRedirects` redirects per command, then its error reply is handed over.
/// - **`TRYAGAIN`, `CLUSTERDOWN`, a link lost:** a refresh is scheduled; a retry-safe command
///   (the caller said so: `retryOnce`) is sent again every `retryTickNanos` until it gets an
///   answer or `clusterRetryWindowMillis` passes (then `.disconnected`); any other command gets
///   the error at once. A command that was redirected but whose target link is not ready yet
///   waits the same way (it has not run anywhere).
/// - **`NOSCRIPT`** (an operator's `SCRIPT FLUSH`): a script call is sent again as `EVAL`, to
///   the same slot, which caches the script again.
/// - **Before the first map, or a primary's link down:** like the standalone client, a command
///   fails fast with `.disconnected`, except a retry-safe one, which waits within the window.
final class RedisCluster: RedisLinkOwner {
    typealias Completion = (Result<RedisReply, RedisError>) -> Void

    /// One command on its way, with what routing has learnt about it. Made only off the common
    /// path: at the first send when a trailer rides along or the route is not ready, else when
    /// the reply asks for more (a redirect, a retry, `NOSCRIPT`).
    private final class Attempt {
        /// The `EVALSHA` of `call`, its `EVAL` after `NOSCRIPT`, or a plain command.
        var command: ArraySlice<UInt8>
        /// The script call `command` runs, until it has fallen back to `EVAL`: loaded on each
        /// connection before its first call there.
        var call: RedisScriptCall?
        let slot: Int?
        let retrySafe: Bool
        let completion: Completion
        /// Pipelined behind the command at every send, to the same node (a `WAIT`).
        let trailer: RedisTrailer?
        /// Sends so far, and the one whose reply was handed over: only its trailer's reply counts.
        var sends = 0
        var answeredSend = 0
        var redirects = 0
        /// Set at the first wait; the command fails once it passes.
        var deadline: UInt64?
        /// The node an `ASK` named: the next send goes there, after `ASKING`.
        var asking: RedisNodeAddress?

        init(command: ArraySlice<UInt8>, call: RedisScriptCall?, slot: Int?, retrySafe: Bool, trailer: RedisTrailer?,
             completion: @escaping Completion) {
            self.command = command
            self.call = call
            self.slot = slot
            self.retrySafe = retrySafe
            self.trailer = trailer
            self.completion = completion
        }

        /// Hands over the reply of the latest send; that send's trailer reply follows it.
        func answer(_ result: Result<RedisReply, RedisError>) {
            answeredSend = sends
            completion(result)
        }
    }

    static let maximumRedirects = 5
    static let refreshIntervalNanos: UInt64 = 200_000_000
    static let retryTickNanos: UInt64 = 100_000_000
    static let watchIntervalNanos: UInt64 = 1_000_000_000
    /// A full map refresh at least this often, even when nothing failed: the last resort for a
    /// slot change nothing announced (subscribers learn of most from `sunsubscribe` and `MOVED`).
    static let periodicRefreshNanos: UInt64 = 10_000_000_000

    let loop: EventLoop
    let status: RedisConnectionStatus
    private let configuration: RedisConfiguration
    private let seeds: [RedisNodeAddress]
    private let log: StorageLog
    private(set) var map: RedisClusterMap?
    /// After every new map and every watch tick (about once a second): `RedisSubscriber` places
    /// its sharded channels again.
    var onTopology: (() -> Void)?
    private var links: [RedisNodeAddress: RedisLink] = [:]
    private var linkStatuses: [RedisNodeAddress: RedisConnectionStatus] = [:]
    /// Reconnects of links already closed, so the counter never goes back.
    private var retiredReconnects = 0
    private var started = false
    private var closed = false
    private var refreshing = false
    private var refreshWanted = false
    private var lastRefreshStart: UInt64 = 0
    private var refreshTimer: TimerID?
    private var watchTimer: TimerID?
    private var waiting: [Attempt] = []
    private var retryTimer: TimerID?
    private static let asking = encoded(["ASKING"])
    private static let clusterSlots = encoded(["CLUSTER", "SLOTS"])

    private static func encoded(_ arguments: [String]) -> ArraySlice<UInt8> {
        var command = RedisCommand(arguments.map { Array($0.utf8) })
        return command.finish()
    }

    init(configuration: RedisConfiguration, loop: EventLoop, status: RedisConnectionStatus, log: @escaping StorageLog) {
        self.configuration = configuration
        self.loop = loop
        self.status = status
        self.log = log
        seeds = configuration.seeds.isEmpty
            ? [RedisNodeAddress(host: configuration.host, port: configuration.port)] : configuration.seeds
    }

    private var retryWindowNanos: UInt64 {
        nanoseconds(fromMillis: configuration.clusterRetryWindowMillis, minimum: 0)
    }

    func start() {
        guard !started, !closed else { return }
        started = true
        for seed in seeds { _ = link(for: seed) }
        refreshWanted = true
        armWatch()
    }

    func close() {
        guard !closed else { return }
        closed = true
        for link in links.values { link.close() }
        links.removeAll()
        for timer in [refreshTimer, watchTimer, retryTimer].compactMap({ $0 }) { loop.cancel(timer) }
        refreshTimer = nil
        watchTimer = nil
        retryTimer = nil
        let stranded = waiting
        waiting.removeAll()
        for attempt in stranded { attempt.completion(.failure(.closed)) }
        status.connected.store(false, ordering: .releasing)
    }

    // MARK: Commands

    /// Routes one encoded command (see the type's comment). The completion runs on the loop,
    /// never inside this call. A `trailer` is pipelined behind the command on the same link at
    /// every send (a redirect, a retry); only the one behind the send whose reply is handed over
    /// reaches its completion, right after that reply.
    func send(encoded command: ArraySlice<UInt8>, retrySafe: Bool, trailer: RedisTrailer? = nil, _ completion: @escaping Completion) {
        route(command, call: nil, retrySafe: retrySafe, trailer: trailer, completion)
    }

    /// Runs a script call by `EVALSHA`, routed like `send`; on `NOSCRIPT` (an operator's `SCRIPT
    /// FLUSH`) it is sent again as `EVAL`, which caches it again.
    func run(_ call: RedisScriptCall, retrySafe: Bool, trailer: RedisTrailer? = nil, _ completion: @escaping Completion) {
        route(call.evalsha, call: call, retrySafe: retrySafe, trailer: trailer, completion)
    }

    private func route(_ command: ArraySlice<UInt8>, call: RedisScriptCall?, retrySafe: Bool, trailer: RedisTrailer?,
                       _ completion: @escaping Completion) {
        let slot: Int?
        switch RedisClusterRoute.slot(of: command) {
        case .failure(let error): return loop.deferToEndOfIteration { completion(.failure(error)) }
        case .success(let found): slot = found
        }
        // The common case, once per command of every message: the slot's primary is known and
        // its link ready, and the reply is the answer. Nothing is tracked unless it is not.
        if trailer == nil, !closed, let target = node(for: slot), let connection = links[target]?.ready,
           call.map({ connection.prepare($0.script) }) ?? true {
            let sent = connection.send(encoded: command) { [weak self] result in
                if case .success(let reply) = result, !reply.isError { return completion(result) }
                let attempt = Attempt(command: command, call: call, slot: slot, retrySafe: retrySafe, trailer: nil,
                                      completion: completion)
                guard let self else { return attempt.answer(result) }
                self.settle(attempt, result)
            }
            if sent { return }
        }
        dispatch(Attempt(command: command, call: call, slot: slot, retrySafe: retrySafe, trailer: trailer, completion: completion))
    }

    private func dispatch(_ attempt: Attempt) {
        guard !closed else { return loop.deferToEndOfIteration { attempt.completion(.failure(.closed)) } }
        let target = attempt.asking ?? node(for: attempt.slot)
        guard let target, let connection = link(for: target).ready else {
            return notSent(attempt)
        }
        if let call = attempt.call, !connection.prepare(call.script) { return notSent(attempt) }
        if attempt.asking != nil {
            attempt.asking = nil
            // Its reply is read and dropped; the command's own reply says whether it worked.
            _ = connection.send(encoded: Self.asking) { _ in }
        }
        let sent = connection.send(encoded: attempt.command) { [weak self] result in
            guard let self else { return attempt.answer(result) }
            self.settle(attempt, result)
        }
        guard sent else { return notSent(attempt) }
        if let trailer = attempt.trailer {
            attempt.sends += 1
            let send = attempt.sends
            // A write refused here closes the connection, so the command fails and is settled.
            _ = connection.send(encoded: trailer.command) { result in
                if attempt.answeredSend == send { trailer.completion(result) }
            }
        }
    }

    /// The primary serving `slot`; for a keyless command (or a slot no range covers), a primary
    /// whose link is ready.
    private func node(for slot: Int?) -> RedisNodeAddress? {
        guard let map else { return nil }
        if let slot, let owner = map.primary(forSlot: slot) { return owner }
        return map.primaries.first { links[$0]?.ready != nil } ?? map.primaries.first
    }

    /// Could not be sent (no map yet, or the link down): it has not run anywhere.
    private func notSent(_ attempt: Attempt) {
        scheduleRefresh()
        if attempt.retrySafe || attempt.redirects > 0 {
            loop.deferToEndOfIteration { [self] in wait(attempt) }
        } else {
            loop.deferToEndOfIteration { attempt.completion(.failure(.disconnected)) }
        }
    }

    private func settle(_ attempt: Attempt, _ result: Result<RedisReply, RedisError>) {
        switch result {
        case .success(let reply) where reply.isError:
            if let call = attempt.call, reply.isError(withPrefix: "NOSCRIPT") {
                attempt.command = call.eval
                attempt.call = nil
                return dispatch(attempt)
            }
            let message = reply.errorMessage ?? ""
            if let redirect = Redirect(message), attempt.redirects < Self.maximumRedirects {
                attempt.redirects += 1
                if redirect.moved {
                    map?.assign(slot: redirect.slot, to: redirect.node)
                    scheduleRefresh()
                } else {
                    attempt.asking = redirect.node
                }
                return dispatch(attempt)
            }
            if attempt.retrySafe, message.hasPrefix("TRYAGAIN") || message.hasPrefix("CLUSTERDOWN"),
               !windowPassed(attempt) {
                scheduleRefresh()
                return wait(attempt)
            }
            attempt.answer(result)
        case .failure(let error) where error == .disconnected || error == .timeout:
            scheduleRefresh()
            guard attempt.retrySafe else { return attempt.answer(result) }
            // In-flight commands fail inside the connection's teardown: decide outside its frame.
            loop.deferToEndOfIteration { [self] in wait(attempt) }
        default:
            attempt.answer(result)
        }
    }

    private func windowPassed(_ attempt: Attempt) -> Bool {
        guard let deadline = attempt.deadline else { return false }
        return MonotonicClock.now() >= deadline
    }

    // MARK: Waiting for a route

    private func wait(_ attempt: Attempt) {
        guard !closed else { return attempt.completion(.failure(.closed)) }
        let now = MonotonicClock.now()
        if attempt.deadline == nil { attempt.deadline = now + retryWindowNanos }
        if let deadline = attempt.deadline, now >= deadline { return attempt.completion(.failure(.disconnected)) }
        waiting.append(attempt)
        guard retryTimer == nil else { return }
        retryTimer = loop.schedule(afterNanoseconds: Self.retryTickNanos) { [weak self] in
            guard let self else { return }
            self.retryTimer = nil
            self.resendWaiting()
        }
    }

    /// Sends every waiting command again (each one waits again if its route is still down).
    private func resendWaiting() {
        let again = waiting
        waiting.removeAll()
        for attempt in again { dispatch(attempt) }
    }

    // MARK: Links

    /// The link to `node`, opened (and started) on first use.
    private func link(for node: RedisNodeAddress) -> RedisLink {
        if let link = links[node] { return link }
        var nodeConfiguration = configuration
        nodeConfiguration.host = node.host
        nodeConfiguration.port = node.port
        nodeConfiguration.database = 0
        let linkStatus = RedisConnectionStatus()
        let link = RedisLink(name: "redis-cluster", configuration: nodeConfiguration, loop: loop, selectsDatabase: false,
                             status: linkStatus, log: log)
        link.onReady = { [weak self] _ in self?.linkReady() }
        links[node] = link
        linkStatuses[node] = linkStatus
        if started, !closed { link.start() }
        return link
    }

    private func linkReady() {
        updateStatus()
        if refreshWanted { startRefresh() }
        if !waiting.isEmpty { loop.deferToEndOfIteration { [weak self] in self?.resendWaiting() } }
    }

    /// Closes links to nodes that are no longer primaries (a demoted primary, a seed).
    private func retireLinks(keeping primaries: Set<RedisNodeAddress>) {
        for (node, link) in links where !primaries.contains(node) {
            links[node] = nil
            retiredReconnects += linkStatuses.removeValue(forKey: node)?.reconnects.load(ordering: .relaxed) ?? 0
            // Possibly inside this link's own reply callback: close after it.
            loop.deferToEndOfIteration { link.close() }
        }
    }

    private func updateStatus() {
        let connected = map.map { map in !map.primaries.isEmpty && map.primaries.allSatisfy { links[$0]?.ready != nil } } ?? false
        status.connected.store(connected, ordering: .releasing)
        let reconnects = retiredReconnects + linkStatuses.values.reduce(0) { $0 + $1.reconnects.load(ordering: .relaxed) }
        status.reconnects.store(reconnects, ordering: .relaxed)
    }

    /// Every second: status for /ready, and a refresh while a primary is unreachable (the
    /// failover that promotes its replica shows only in a new map).
    private func armWatch() {
        watchTimer = loop.schedule(afterNanoseconds: Self.watchIntervalNanos) { [weak self] in
            guard let self, !self.closed else { return }
            self.updateStatus()
            if !self.status.connected.load(ordering: .acquiring)
                || MonotonicClock.now() >= self.lastRefreshStart + Self.periodicRefreshNanos {
                self.scheduleRefresh()
            }
            self.onTopology?()
            self.armWatch()
        }
    }

    // MARK: Map refresh

    /// At most one refresh in flight and one start per `refreshIntervalNanos`.
    private func scheduleRefresh() {
        guard !closed else { return }
        refreshWanted = true
        guard !refreshing, refreshTimer == nil else { return }
        let earliest = lastRefreshStart + Self.refreshIntervalNanos
        let now = MonotonicClock.now()
        guard now < earliest else { return startRefresh() }
        refreshTimer = loop.schedule(afterNanoseconds: earliest - now) { [weak self] in
            guard let self else { return }
            self.refreshTimer = nil
            self.startRefresh()
        }
    }

    /// Asks the first node with a ready link: the map's nodes, then the seeds. With none ready,
    /// links to all of them are opened and the first one ready asks (`linkReady`).
    private func startRefresh() {
        guard refreshWanted, !refreshing, !closed, refreshTimer == nil else { return }
        var candidates = map?.nodes ?? []
        for seed in seeds where !candidates.contains(seed) { candidates.append(seed) }
        let ready = candidates.lazy.compactMap { node in self.links[node]?.ready.map { (node, $0) } }.first
        guard let (node, connection) = ready else {
            for node in candidates { _ = link(for: node) }
            return
        }
        let sent = connection.send(encoded: Self.clusterSlots) { [weak self] result in
            self?.refreshed(result.map(\.value), from: node)
        }
        guard sent else { return }
        refreshing = true
        refreshWanted = false
        lastRefreshStart = MonotonicClock.now()
    }

    private func refreshed(_ result: Result<RedisValue, RedisError>, from node: RedisNodeAddress) {
        refreshing = false
        guard !closed else { return }
        switch result {
        case .success(let reply):
            switch RedisClusterMap.parse(slots: reply, answeredBy: node) {
            case .success(let fresh) where fresh.assignedSlots > 0:
                apply(fresh)
            case .success:
                log(.warning, "redis-cluster: \(node) knows no slot yet; asking again")
                scheduleRefresh()
            case .failure(let problem):
                log(.warning, "redis-cluster: CLUSTER SLOTS from \(node) unreadable (\(problem)); keeping the old map")
                scheduleRefresh()
            }
        case .failure:
            scheduleRefresh()
        }
    }

    private func apply(_ fresh: RedisClusterMap) {
        if map == nil {
            log(.info, "redis-cluster: \(fresh.primaries.count) primaries, \(fresh.assignedSlots) slots assigned")
        } else if map?.primaries != fresh.primaries {
            log(.info, "redis-cluster: primaries now \(fresh.primaries.map(\.description).joined(separator: ", "))")
        }
        map = fresh
        for primary in fresh.primaries { _ = link(for: primary) }
        retireLinks(keeping: Set(fresh.primaries))
        updateStatus()
        if refreshWanted { scheduleRefresh() }
        if !waiting.isEmpty { loop.deferToEndOfIteration { [weak self] in self?.resendWaiting() } }
        onTopology?()
    }

    // MARK: Hooks for RedisShardedSubscriptions

    /// A subscriber's `SSUBSCRIBE` was answered `MOVED`: as for a command, the slot moves in the
    /// map at once and a (rate-limited) refresh follows.
    func moved(slot: Int, to node: RedisNodeAddress) {
        map?.assign(slot: slot, to: node)
        scheduleRefresh()
    }

    /// A subscriber saw a slot leave its node (`sunsubscribe`): a refresh, rate-limited as always.
    func refreshSoon() { scheduleRefresh() }
}

/// `MOVED <slot> <host>:<port>` or `ASK <slot> <host>:<port>`.
struct Redirect: Equatable {
    let moved: Bool
    let slot: Int
    let node: RedisNodeAddress

    init?(_ message: String) {
        let parts = message.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[0] == "MOVED" || parts[0] == "ASK",
              let slot = Int(parts[1]), slot >= 0, slot < RedisSlot.count,
              let node = RedisNodeAddress(redirect: parts[2])
        else { return nil }
        moved = parts[0] == "MOVED"
        self.slot = slot
        self.node = node
    }
}
