import Foundation
import WhisperOps

/// CPU use of the server, Redis and the generator over a run, sampled every 10 ms on its own
/// thread, beside `LatencySeries`: from /proc/<pid>/task/*/schedstat (nanoseconds on CPU, per
/// thread) — /proc/<pid>/stat counts in 10 ms ticks, too coarse for 10 ms samples — and the
/// context switches of /proc/<pid>/status, so a latency spike can be lined up with who was busy.
final class CPUSeries: @unchecked Sendable {
    struct Row {
        var millis: Double
        var values: [Double]
    }

    private let pids: [(name: String, pid: Int32)]
    private let intervalNanos: UInt64
    private let lock = NSLock()
    private var rows: [Row] = []
    private var running = true
    private let finished = DispatchSemaphore(value: 0)

    init(server: Int32?, redis: Int32?, intervalNanos: UInt64 = 10_000_000) {
        var pids: [(String, Int32)] = []
        if let server { pids.append(("server", server)) }
        if let redis { pids.append(("redis", redis)) }
        pids.append(("bench", getpid()))
        self.pids = pids
        self.intervalNanos = intervalNanos
    }

    /// Samples from now (t = 0 at `origin`, a MonotonicClock time) until `stop`.
    func start(origin: UInt64) {
        let first = pids.map { Self.counters(pid: $0.pid) }
        let firstTime = MonotonicClock.now()
        let thread = Thread { [self] in
            var previous = first
            var previousTime = firstTime
            var next = previousTime + intervalNanos
            var last = false
            while !last {
                let now = MonotonicClock.now()
                if next > now { usleep(UInt32(min((next - now) / 1_000, 1_000_000))) }
                next += intervalNanos
                // One more sample after `stop`, so even a starved thread leaves a row for the window.
                last = !lock.withLock({ running })
                let time = MonotonicClock.now()
                let current = pids.map { Self.counters(pid: $0.pid) }
                let elapsed = Double(time - previousTime)
                var values: [Double] = []
                for (before, after) in zip(previous, current) {
                    let delta = Self.delta(before, after)
                    values.append(elapsed > 0 ? Double(delta.cpuNanos) / elapsed : 0)
                    values.append(Double(delta.switches))
                }
                let millis = time >= origin ? Double(time - origin) / 1e6 : -Double(origin - time) / 1e6
                lock.withLock { rows.append(Row(millis: millis, values: values)) }
                previous = current
                previousTime = time
            }
            finished.signal()
        }
        thread.name = "cpu-series"
        thread.start()
    }

    /// Stops sampling; returns once the last row is written.
    func stop() {
        lock.withLock { running = false }
        finished.wait()
    }

    /// `t_ms,<name>_cores,<name>_switches,…`: cores busy over each interval, and context switches in it.
    var csv: String {
        let header = "t_ms," + pids.map { "\($0.name)_cores,\($0.name)_switches" }.joined(separator: ",")
        let rows = lock.withLock { self.rows }
        var lines = [header]
        lines.reserveCapacity(rows.count + 1)
        for row in rows {
            lines.append(([String(format: "%.2f", row.millis)] + row.values.map { String(format: "%.3f", $0) }).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    typealias Counters = (cpuNanos: UInt64, switches: UInt64)

    /// Nanoseconds on CPU and context switches of each of the process's threads, by thread id.
    static func counters(pid: Int32) -> [String: Counters] {
        var threads: [String: Counters] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            var counters: Counters = (0, 0)
            if let text = ProcFile.readText("/proc/\(pid)/task/\(task)/schedstat"),
               let first = text.split(separator: " ").first, let nanos = UInt64(first) {
                counters.cpuNanos = nanos
            }
            if let status = ProcFile.readText("/proc/\(pid)/task/\(task)/status") {
                for line in status.split(separator: "\n")
                where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    if let value = line.split(separator: ":").last.flatMap({ UInt64($0.trimmingCharacters(in: .whitespaces)) }) {
                        counters.switches &+= value
                    }
                }
            }
            threads[task] = counters
        }
        return threads
    }

    /// What the process's threads used between two readings. Summed per thread, so a thread
    /// that exited in between takes nothing away (summing the totals first made such an
    /// interval negative, which wrapped to a huge value); one born in between counts from 0.
    static func delta(_ before: [String: Counters], _ after: [String: Counters]) -> Counters {
        var total: Counters = (0, 0)
        for (thread, now) in after {
            let then = before[thread] ?? (0, 0)
            if now.cpuNanos >= then.cpuNanos { total.cpuNanos += now.cpuNanos - then.cpuNanos }
            if now.switches >= then.switches { total.switches += now.switches - then.switches }
        }
        return total
    }
}
