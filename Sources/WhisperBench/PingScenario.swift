import WhisperOps

/// `ping`: N logged-in phones, each keeping K JSON `ping` frames in flight (closed loop), or
/// all of them together sending a fixed total rate (open loop, `rate`): the per-frame overhead
/// every presence, typing and receipt frame pays — read, parse, route, encode, write — with
/// nothing behind it (no Redis, no signature).
public enum PingScenario {
    public static func run(_ options: PingOptions, connection: ConnectionOptions) async throws -> PingResult {
        try options.validate()
        try FileDescriptorLimit.ensure(options.connections + FileDescriptorLimit.overhead)
        let runtime = try BenchRuntime(options: connection)
        defer { runtime.shutdown() }
        let shardCount = runtime.loops.count
        let shardRate = options.rate.map { $0 / Double(runtime.loops.count) }
        let shards = await runtime.makeShards {
            PingShard(context: $0, inFlight: options.inFlight, rate: shardRate, anonymous: options.anonymous)
        }
        let concurrency = max(1, connection.connectConcurrency / shardCount)
        let logins = LoginTally.merged(await gather(shards) { shard, done in
            let index = shard.context.loop.index
            let count = options.connections / shardCount + (index < options.connections % shardCount ? 1 : 0)
            shard.connect(count: count, concurrency: concurrency, completion: done)
        })
        guard logins.failures.isEmpty else {
            _ = await gather(shards) { shard, done in shard.closeAll { done(()) } }
            throw BenchError.setup("ping: \(logins.failures.total) of \(logins.attempted) logins failed: \(logins.failures.line)")
        }

        let window = RelayWindow.fromNow(warmupSeconds: options.warmupSeconds, durationSeconds: options.durationSeconds)
        _ = await gather(shards) { shard, done in
            shard.start(window)
            done(())
        }
        let probe = ResourceProbe(targets: ProbeTargets(serverPid: options.serverPid))
        let samples = options.serverPid != nil
            ? await RelayScenario.samples(of: probe, at: [window.windowStart, window.windowEnd]) : []
        let before = samples.count == 2 ? samples.first : nil, after = samples.count == 2 ? samples.last : nil
        // Let the last pongs come back before counting what never did.
        try await RelayScenario.sleep(until: window.windowEnd + 1_000_000_000)
        let results = await gather(shards) { shard, done in done(shard.result()) }
        _ = await gather(shards) { shard, done in shard.closeAll { done(()) } }

        var total = PingShard.Result()
        for result in results { total.merge(result) }
        var serverMicros: Double?
        if let before, let after, let a = before.serverCPUSeconds, let b = after.serverCPUSeconds, total.inWindow > 0 {
            serverMicros = (b - a) * 1e6 / Double(total.inWindow)
        }
        return PingResult(options: options, windowSeconds: window.seconds, total: total, serverMicrosPerRoundTrip: serverMicros)
    }
}

/// `whisper-bench ping`.
public struct PingOptions: Sendable {
    public var connections = 50
    /// Pings awaiting their pong per connection (closed loop).
    public var inFlight = 8
    /// Pings per second over all connections (open loop: each sent at its own time, its latency
    /// counted from then); nil keeps `inFlight` in flight instead.
    public var rate: Double?
    /// Ping without logging in (`ping` is allowed before login): the same frames for another
    /// server that answers only ping (scripts/bench-peers, the uWebSockets comparison).
    public var anonymous = false
    public var warmupSeconds = 2.0
    public var durationSeconds = 10.0
    public var serverPid: Int32?

    public init() {}

    func validate() throws(BenchError) {
        guard connections >= 1, inFlight >= 1 else { throw .invalidOption("--connections and --in-flight must be at least 1") }
        if let rate, !(rate > 0 && rate <= 10_000_000) { throw .invalidOption("--rate must be in (0, 10000000]") }
        guard durationSeconds > 0, durationSeconds <= 86_400, warmupSeconds >= 0, warmupSeconds <= 3_600 else {
            throw .invalidOption("--duration must be in (0, 86400], --warmup in [0, 3600]")
        }
    }
}

/// The ping scenario's numbers.
public struct PingResult: Sendable {
    public var options: PingOptions
    public var windowSeconds: Double
    var total: PingShard.Result
    /// Server CPU (utime + stime over the window) per round trip answered in the window.
    public var serverMicrosPerRoundTrip: Double?

    public var roundTripsPerSecond: Double { Double(total.inWindow) / max(windowSeconds, 1e-9) }
    public var passed: Bool {
        total.errors.isEmpty && total.unanswered == 0 && total.unexpected == 0 && total.skipped == 0 && total.inWindow > 0
    }

    public var report: BenchReport {
        let latency = total.latency.summary
        var summary = [
            "ping: \(options.connections) connections, " + (options.rate.map { "open loop at \(ReportFormat.rate($0))/s" } ?? "\(options.inFlight) in flight each")
                + ", window \(ReportFormat.fixed(windowSeconds, digits: 1)) s",
            "  \(ReportFormat.rate(roundTripsPerSecond)) round trips/s; ping → pong \(latency.line)",
            "  unanswered \(total.unanswered), unexpected frames \(total.unexpected), skipped (\(PingShard.openLoopMaxInFlight) in flight) \(total.skipped), errors: \(total.errors.line)",
        ]
        if let serverMicrosPerRoundTrip {
            summary.append("  server CPU per round trip \(ReportFormat.fixed(serverMicrosPerRoundTrip, digits: 2)) µs")
        }
        let json = ReportObject([
            ("connections", .int(options.connections)), ("in_flight", .int(options.inFlight)),
            ("rate", options.rate.map { .double($0) } ?? .null), ("skipped", .int(total.skipped)),
            ("anonymous", .bool(options.anonymous)),
            ("window_s", .double(windowSeconds)), ("round_trips_per_s", .double(roundTripsPerSecond)),
            ("latency", .object(latency.report)), ("unanswered", .int(total.unanswered)),
            ("unexpected_frames", .int(total.unexpected)), ("errors", .object(total.errors.report)),
            ("server_cpu_per_round_trip_us", serverMicrosPerRoundTrip.map { .double($0) } ?? .null),
        ])
        return BenchReport(scenario: "ping", passed: passed, summary: summary, json: json)
    }
}

/// The ping scenario's phones on one loop. Pongs come back in order on each connection, so
/// each phone keeps the send times of its pings in flight in a FIFO. Loop thread only.
final class PingShard: PhoneOwner {
    struct Result: Sendable {
        var latency = LatencyRecorder()
        /// Pongs for pings sent inside the window.
        var inWindow = 0
        var unanswered = 0
        var unexpected = 0
        /// Open loop: pings not sent because their connection had `openLoopMaxInFlight` waiting.
        var skipped = 0
        var errors = ErrorTally()

        mutating func merge(_ other: Result) {
            latency.merge(other.latency)
            inWindow += other.inWindow
            unanswered += other.unanswered
            unexpected += other.unexpected
            skipped += other.skipped
            errors.merge(other.errors)
        }
    }

    static let openLoopMaxInFlight = 64

    let context: ShardContext
    private let inFlight: Int
    /// Open loop: its schedule, at this shard's share of the rate (nil: closed loop).
    private var openLoop: OpenLoop?
    private var phones: [Phone] = []
    private var sent: [ObjectIdentifier: SendTimes] = [:]
    private var window = RelayWindow(start: .max, windowStart: .max, windowEnd: .max)
    private var state = Result()
    private var sequence = 0

    private let anonymous: Bool

    init(context: ShardContext, inFlight: Int, rate: Double?, anonymous: Bool) {
        self.anonymous = anonymous
        self.context = context
        self.inFlight = inFlight
        openLoop = rate.map(OpenLoop.init)
    }

    func connect(count: Int, concurrency: Int, completion: @escaping (LoginTally) -> Void) {
        phones = (0..<count).map { Phone(index: $0, identity: context.newIdentity()) }
        for phone in phones {
            phone.owner = self
            phone.connectsOnly = anonymous
        }
        context.logIn(phones, concurrency: concurrency, completion: completion)
    }

    func start(_ window: RelayWindow) {
        self.window = window
        let now = MonotonicClock.now()
        context.loop.schedule(afterNanoseconds: window.start > now ? window.start - now : 0) { [self] in
            guard openLoop == nil else { return tickOpenLoop() }
            for phone in phones {
                for _ in 0..<inFlight { ping(phone) }
            }
        }
    }

    /// Open loop, as the relay's: round robin over the phones.
    private func tickOpenLoop() {
        guard openLoop != nil, !phones.isEmpty else { return }
        let wait = openLoop?.issueDue(now: MonotonicClock.now(), in: window) { k, intended in
            let phone = phones[Int(k % UInt64(phones.count))]
            if sent[ObjectIdentifier(phone)]?.count ?? 0 >= Self.openLoopMaxInFlight {
                if window.contains(intended) { state.skipped += 1 }
            } else {
                ping(phone, at: intended)
            }
        }
        if let wait { context.loop.schedule(afterNanoseconds: wait) { [self] in tickOpenLoop() } }
    }

    /// Sends a ping; its latency counts from `intended` (the open loop's due time) or now.
    private func ping(_ phone: Phone, at intended: UInt64? = nil) {
        sequence += 1
        guard phone.send(ClientFrames.ping(requestId: "p\(sequence)")) else { return state.errors.add("send_on_closed_socket") }
        sent[ObjectIdentifier(phone), default: SendTimes()].push(intended ?? MonotonicClock.now())
    }

    func phone(_ phone: Phone, didReceive frame: ServerFrame) {
        guard frame.type == "pong" else {
            if frame.type == "error" { state.errors.add(frame.string("code") ?? "UNKNOWN") } else { state.unexpected += 1 }
            return
        }
        let now = MonotonicClock.now()
        guard let sentAt = sent[ObjectIdentifier(phone)]?.pop() else { state.unexpected += 1; return }
        if window.contains(sentAt) {
            state.latency.record(nanoseconds: now &- sentAt)
            state.inWindow += 1
        }
        if openLoop == nil, now < window.windowEnd { ping(phone) }
    }

    func phone(_ phone: Phone, didEnd end: ClientEnd) {
        if end != .closedByClient { state.errors.add(end.label) }
    }

    func result() -> Result {
        var result = state
        result.unanswered = sent.values.reduce(0) { $0 + $1.count }
        return result
    }

    func closeAll(completion: @escaping () -> Void) {
        context.closeAll(phones, completion: completion)
    }

    /// Send times of one connection's pings in flight, oldest first.
    struct SendTimes {
        private var times: [UInt64] = []
        private var head = 0
        var count: Int { times.count - head }

        mutating func push(_ time: UInt64) { times.append(time) }

        mutating func pop() -> UInt64? {
            guard head < times.count else { return nil }
            defer {
                head += 1
                if head == times.count { times.removeAll(keepingCapacity: true); head = 0 }
            }
            return times[head]
        }
    }
}
