#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import WhisperAdmin
import WhisperBench
import WhisperTesting

/// Every scenario, briefly, against a whole server in this process (real PostgreSQL and
/// Redis): they must complete with no errors, nothing lost and nothing duplicated. Speed is
/// not judged here.
@Suite(.serialized) struct BenchSmokeTests {
    /// What docs and `whisper-bench --help` tell operators to set for benchmarks.
    static let benchmarkLimits = [
        "WHISPER_RATE_SEND": "1000000/10", "WHISPER_RATE_SEND_IP": "1000000/10",
        "WHISPER_RATE_REGISTER": "1000000/10", "WHISPER_RATE_REGISTER_IP": "1000000/10",
        "WHISPER_RATE_FETCH": "1000000/10", "WHISPER_RATE_FETCH_IP": "1000000/10",
        "WHISPER_MAX_PENDING_PER_USER": "100000",
        // Every simulated phone connects from 127.0.0.1.
        "WHISPER_MAX_CONNECTIONS_PER_IP": "0", "WHISPER_CONNECTION_RATE_PER_IP": "0",
    ]

    /// Runs `scenario` against a fresh server with the benchmark limits (and `overrides`),
    /// connecting as the scenarios do; the server stops afterwards.
    private func onBenchServer<R>(_ overrides: [String: String] = [:],
                                  _ scenario: (TestServer, ConnectionOptions) async throws -> R) async throws -> R {
        let server = try await TestServer(Self.benchmarkLimits.merging(overrides) { $1 })
        defer { server.stop() }
        var connection = ConnectionOptions()
        connection.port = server.publicPort
        connection.sourceAddresses = 4
        return try await scenario(server, connection)
    }

    @Test func relay_fewPairs_twoSeconds_nothingLostOrDuplicated_andCostIsMeasured() async throws {
        let result = try await onBenchServer { server, connection in
            var options = RelayOptions()
            options.pairs = 4
            options.warmupSeconds = 0.5
            options.durationSeconds = 2
            options.presignBudget = 4_000
            // The server runs in this process, so its pid is ours: the numbers mean nothing
            // here, but the /proc and /metrics path is exercised.
            options.probe = ProbeTargets(serverPid: getpid(), admin: AdminEndpoint(host: "127.0.0.1", port: server.adminPort))
            return try await RelayScenario.run(options, connection: connection)
        }
        let summary = result.report.summary
        #expect(result.errors.isEmpty, "\(result.errors.counts)")
        #expect(result.lost == 0, "\(summary)")
        #expect(result.duplicated == 0, "\(summary)")
        #expect(result.settled, "\(summary)")
        #expect(result.counters.accepted > 0, "\(summary)")
        #expect(result.counters.delivered == result.counters.accepted, "\(summary)")
        #expect(result.acceptLatency.count > 0 && result.receiveLatency.count > 0, "\(summary)")
        #expect(result.cost?.meanVerifyMicros != nil, "\(String(describing: result.cost?.metricsError))")
        #expect(result.cost?.ratio != nil, "\(summary)")
    }

    @Test func relay_openLoop_holdsItsRate() async throws {
        var options = RelayOptions()
        options.pairs = 3
        options.rate = 300
        options.warmupSeconds = 0.2
        options.durationSeconds = 1
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-series-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        options.seriesPrefix = folder.appendingPathComponent("relay").path
        options.probe = ProbeTargets(serverPid: getpid())
        let result = try await onBenchServer { try await RelayScenario.run(options, connection: $1) }
        #expect(result.passed, "\(result.report.summary)")
        #expect(abs(result.counters.sentInWindow - 300) <= 3, "sent \(result.counters.sentInWindow)")
        #expect(result.counters.signedLive == 0)
        // The series: one line per measured sample, the CPU every 10 ms, the percentile curve.
        let latency = try String(contentsOf: folder.appendingPathComponent("relay-latency.csv"), encoding: .utf8)
        #expect(latency.split(separator: "\n").count == 1 + Int(result.acceptLatency.count))
        let cpu = try String(contentsOf: folder.appendingPathComponent("relay-cpu.csv"), encoding: .utf8)
        #expect(cpu.hasPrefix("t_ms,server_cores,server_switches,bench_cores,bench_switches,machine_cores,steal_cores\n"))
        #expect(cpu.split(separator: "\n").count >= 2)  // header + rows (≈ 100 at 10 ms, fewer on a starved machine)
        let curve = try String(contentsOf: folder.appendingPathComponent("relay-percentiles.csv"), encoding: .utf8)
        #expect(curve.hasPrefix("percentile,latency_us\n0.0,"))
    }

    @Test func group_twoGroups_everyEnvelopeDeliveredOnce() async throws {
        var options = RelayOptions()
        options.groups = 2
        options.groupMembers = 6
        options.inFlight = 2
        options.warmupSeconds = 0.3
        options.durationSeconds = 1
        options.presignBudget = 2_000
        let result = try await onBenchServer { try await RelayScenario.run(options, connection: $1) }
        #expect(result.passed, "\(result.report.summary)")
        #expect(result.report.scenario == "group")
        #expect(result.counters.accepted > 0 && result.counters.delivered == result.counters.accepted)
        // 2 groups × 5 recipients: ten streams, each sending from the start.
        #expect(result.counters.received >= 10)
    }

    @Test func ping_answersEveryPipelinedPing_inOrder() async throws {
        var options = PingOptions()
        options.connections = 4
        options.inFlight = 4
        options.warmupSeconds = 0.2
        options.durationSeconds = 1
        options.serverPid = getpid()
        let result = try await onBenchServer { try await PingScenario.run(options, connection: $1) }
        #expect(result.passed, "\(result.report.summary)")
        #expect(result.roundTripsPerSecond > 100)
        #expect(result.serverMicrosPerRoundTrip != nil)
    }

    @Test func ping_openLoop_holdsItsRate_withoutLoggingIn() async throws {
        var options = PingOptions()
        options.connections = 4
        options.rate = 400
        options.anonymous = true  // as against the uWebSockets peer: ping is allowed before login
        options.warmupSeconds = 0.2
        options.durationSeconds = 1
        let result = try await onBenchServer { try await PingScenario.run(options, connection: $1) }
        #expect(result.passed, "\(result.report.summary)")
        // Every ping due in the window was sent and answered: the rate, not what the loop managed.
        #expect(abs(result.roundTripsPerSecond - 400) <= 2, "\(result.report.summary)")
    }

    @Test func drain_pagesOut500MessagesExactlyOnce() async throws {
        var options = DrainOptions()
        options.messages = 500
        options.senders = 3
        options.page = 120
        let result = try await onBenchServer { try await DrainScenario.run(options, connection: $1) }
        #expect(result.errors.isEmpty, "\(result.errors.counts)")
        #expect(result.fill.accepted == 500)
        #expect(result.fetch.unique == 500 && result.fetch.duplicates == 0)
        #expect(result.fetch.pages == 5)
        #expect(result.passed)
    }

    @Test func login_runs20Registrations_then20Recoveries() async throws {
        var options = LoginOptions()
        options.logins = 20
        options.concurrency = 8
        let result = try await onBenchServer { try await LoginScenario.run(options, connection: $1) }
        #expect(result.errors.isEmpty, "\(result.errors.counts)")
        #expect(result.registrations.succeeded == 20 && result.recoveries.succeeded == 20)
        #expect(result.passed)
    }

    @Test func idle_all20ConnectionsSurviveAnIdleTimeout_byAnsweringPings() async throws {
        // Pings every second and a 3 s idle timeout: a client that did not answer Pings
        // would be dropped during the 4 s hold.
        var options = IdleOptions()
        options.connections = 20
        options.holdSeconds = 4
        options.serverPid = getpid()
        let result = try await onBenchServer(["WHISPER_WS_PING_INTERVAL_SECONDS": "1", "WHISPER_WS_IDLE_TIMEOUT_SECONDS": "3"]) {
            try await IdleScenario.run(options, connection: $1)
        }
        #expect(result.loggedIn == 20 && result.stayedOpen == 20, "\(result.report.summary)")
        #expect(result.ended.isEmpty)
        #expect(result.pingsAnswered >= 20)
        #expect(result.rssBefore != nil && result.rssHolding != nil)
        #expect(result.passed)
    }
}
