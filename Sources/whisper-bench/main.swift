#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArgumentParser
import WhisperAdmin
import WhisperBench

/// `whisper-bench`: drives a running whisper-server over real WebSockets the way phones do.
/// This file only parses options and prints; the scenarios live in WhisperBench.
@main
struct WhisperBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whisper-bench",
        abstract: "Load generator for whisper-server: phones over real WebSockets (masked frames, real Ed25519 keys).",
        discussion: """
        Each scenario prints a human summary and one JSON line with every number (--json: only the JSON). \
        Exit status 0 when the run was clean (no errors, nothing lost or duplicated), 1 when it was not, \
        2 when it could not run.

        The server must be configured for benchmark rates, or its limits become the result:

          WHISPER_RATE_SEND=1000000/10 WHISPER_RATE_SEND_IP=1000000/10
          WHISPER_RATE_REGISTER=1000000/10 WHISPER_RATE_REGISTER_IP=1000000/10
          WHISPER_RATE_FETCH=1000000/10 WHISPER_RATE_FETCH_IP=1000000/10
          WHISPER_MAX_PENDING_PER_USER=1000000  (drain: at least --messages)
          WHISPER_MAX_CONNECTIONS_PER_IP=0 WHISPER_CONNECTION_RATE_PER_IP=0
            (every simulated phone comes from one address)
          WHISPER_LOG_LEVEL=warn  (per-message info lines cost as much as the work)

        Holding many connections needs `ulimit -n` above the connection count for the server \
        and the bench alike (the bench raises its own soft limit to the hard limit).
        """,
        subcommands: [Relay.self, Idle.self, Drain.self, Login.self, Ping.self]
    )
}

/// Options every scenario shares: where the server is and how the client connects.
struct CommonOptions: ParsableArguments {
    @Option(help: "Server address (numeric).") var host = "127.0.0.1"
    @Option(help: "Server public port.") var port = 8080
    @Option(help: "WebSocket path.") var path = "/ws"
    @Option(help: "Client event loop threads (1–2: leave the cores to the server).") var threads = 1
    @Option(help: "Spread connections over 127.0.0.1 … 127.0.0.N (bind before connect); 0: kernel's choice.")
    var sourceAddresses = 8
    @Flag(help: "Offer permessage-deflate (off by default).") var deflate = false
    @Option(help: "Connect + handshake timeout, seconds.") var connectTimeout = 10.0
    @Option(help: "Connects/logins in flight at once.") var connectConcurrency = 256
    @Flag(help: "Print only the JSON line.") var json = false

    var connection: ConnectionOptions {
        var options = ConnectionOptions()
        options.host = host
        options.port = port
        options.path = path
        options.threads = threads
        options.sourceAddresses = sourceAddresses
        options.offerDeflate = deflate
        options.connectTimeoutSeconds = connectTimeout
        options.connectConcurrency = connectConcurrency
        return options
    }
}

struct Relay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pairs of phones messaging each other: throughput, latency, loss, duplicates, and CPU per message.",
        discussion: """
        With --groups, each sender creates a group of --group-members and sends group_send_message \
        envelopes, one per member, each its own stream with its own in-flight window: every number then \
        counts envelopes.


        With --server-pid (and --redis-pid) and --admin-url, the CPU time of those processes \
        (/proc/<pid>/stat) and the server's whisper_ed25519_verify_seconds (/metrics) are read at both \
        edges of the window, giving the server CPU per relayed message, the mean verify, and \
        R = server CPU per message / mean verify (R_total adds Redis).
        """)

    @OptionGroup var common: CommonOptions
    @Option(help: "Sender/recipient pairs.") var pairs = 50
    @Option(help: "Groups instead of pairs: each sender owns one and sends every message as an envelope per member.")
    var groups: Int?
    @Option(help: "Members per group, the sender included (server: WHISPER_MAX_GROUP_MEMBERS ≥ this).")
    var groupMembers = 256
    @Option(help: "Closed loop: unanswered messages per sender.") var inFlight = 4
    @Option(help: "Open loop instead: total target rate, messages per second.") var rate: Double?
    @Option(help: "Measured window, seconds.") var duration = 10.0
    @Option(help: "Warm-up before the window, seconds.") var warmup = 2.0
    @Flag(inversion: .prefixedNo, help: "Sign all messages before the run.") var presign = true
    @Option(help: "Closed loop: messages to pre-sign in total (default 15000 per second of run).") var presignBudget: Int?
    @Option(help: "Ciphertext bytes per message.") var ciphertextBytes = 64
    @Option(help: "Seconds to wait after the window for acks, deliveries and receipts.") var settleTimeout = 15.0
    @Option(help: "Cores for `core use` (default: online CPUs).") var cores: Int?
    @Option(help: "whisper-server pid (CPU time).") var serverPid: Int32?
    @Option(help: "redis-server pid (CPU time); repeated for each primary of a Redis Cluster (summed, spread reported).")
    var redisPid: [Int32] = []
    @Option(help: "Admin listener, http://127.0.0.1:PORT (for /metrics).") var adminUrl: String?
    @Option(help: "Write PREFIX-latency.csv (every sample), PREFIX-cpu.csv (10 ms) and PREFIX-percentiles.csv.")
    var seriesOut: String?

    func run() async throws {
        var options = RelayOptions()
        options.seriesPrefix = seriesOut
        options.pairs = pairs
        options.groups = groups
        options.groupMembers = groupMembers
        options.inFlight = inFlight
        options.rate = rate
        options.durationSeconds = duration
        options.warmupSeconds = warmup
        options.presign = presign
        options.presignBudget = presignBudget
        options.ciphertextBytes = ciphertextBytes
        options.settleTimeoutSeconds = settleTimeout
        options.cores = cores
        options.probe = ProbeTargets(serverPid: serverPid, redisPids: redisPid, admin: try adminEndpoint(adminUrl))
        let connection = common.connection
        try await report(json: common.json) { try await RelayScenario.run(options, connection: connection).report }
    }
}

struct Idle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Many logged-in, silent connections: how many survive, and the server's memory per connection.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Connections (each a new identity, logged in).") var connections = 1_000
    @Option(help: "Seconds to hold them (past 90 proves keep-alive Pongs work).") var hold = 60.0
    @Option(help: "whisper-server pid (VmRSS before and while holding).") var serverPid: Int32?

    func run() async throws {
        var options = IdleOptions()
        options.connections = connections
        options.holdSeconds = hold
        options.serverPid = serverPid
        let connection = common.connection
        try await report(json: common.json) { try await IdleScenario.run(options, connection: connection).report }
    }
}

struct Ping: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Logged-in phones pipelining JSON pings: per-frame overhead, and server CPU per round trip.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Connections (each a new identity, logged in).") var connections = 50
    @Option(help: "Pings awaiting their pong per connection (closed loop).") var inFlight = 8
    @Option(help: "Pings per second over all connections instead (open loop: latency from each one's due time).")
    var rate: Double?
    @Flag(help: "Ping without logging in (for a peer server that answers only ping).") var anonymous = false
    @Option(help: "Measured window, seconds.") var duration = 10.0
    @Option(help: "Warm-up before the window, seconds.") var warmup = 2.0
    @Option(help: "whisper-server pid (CPU time).") var serverPid: Int32?

    func run() async throws {
        var options = PingOptions()
        options.connections = connections
        options.inFlight = inFlight
        options.rate = rate
        options.anonymous = anonymous
        options.durationSeconds = duration
        options.warmupSeconds = warmup
        options.serverPid = serverPid
        let connection = common.connection
        try await report(json: common.json) { try await PingScenario.run(options, connection: connection).report }
    }
}

struct Drain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A backlog for one offline user, then how fast fetch_pending pages it out.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Messages to queue (server: WHISPER_MAX_PENDING_PER_USER ≥ this).") var messages = 20_000
    @Option(help: "fetch_pending page size, 1–200.") var page = 200
    @Option(help: "Phones filling the queue.") var senders = 4
    @Option(help: "Unanswered sends per sender while filling.") var inFlight = 8
    @Option(help: "Ciphertext bytes per message.") var ciphertextBytes = 64

    func run() async throws {
        var options = DrainOptions()
        options.messages = messages
        options.page = page
        options.senders = senders
        options.inFlight = inFlight
        options.ciphertextBytes = ciphertextBytes
        let connection = common.connection
        try await report(json: common.json) { try await DrainScenario.run(options, connection: connection).report }
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Registrations of new identities, then recovery logins of the same identities.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Registrations (and as many recovery logins).") var logins = 2_000
    @Option(help: "Logins in flight, each on its own connection.") var concurrency = 64

    func run() async throws {
        var options = LoginOptions()
        options.logins = logins
        options.concurrency = concurrency
        let connection = common.connection
        try await report(json: common.json) { try await LoginScenario.run(options, connection: connection).report }
    }
}

func adminEndpoint(_ text: String?) throws -> AdminEndpoint? {
    guard let text else { return nil }
    guard let endpoint = AdminEndpoint(url: text) else {
        throw ValidationError("--admin-url must look like http://127.0.0.1:9090")
    }
    return endpoint
}

/// Runs a scenario and prints its report; a scenario that could not run exits 2 with one line.
func report(json: Bool, _ scenario: () async throws -> BenchReport) async throws {
    // Line-buffered even into a pipe, so a crash does not swallow what was already printed.
    setvbuf(stdout, nil, _IOLBF, 0)
    let result: BenchReport
    do {
        result = try await scenario()
    } catch let error as BenchError {
        fputs("whisper-bench: \(error.description)\n", stderr)
        throw ExitCode(2)
    }
    if !json { for line in result.summary { print(line) } }
    print(result.jsonLine)
    if !result.passed { throw ExitCode(1) }
}
