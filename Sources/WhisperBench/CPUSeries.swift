import Foundation
import WhisperOps

/// CPU use of the server, Redis and the generator over a run, sampled every 10 ms on its own
/// thread, beside `LatencySeries`: from /proc/<pid>/task/*/schedstat (nanoseconds on CPU and
/// times scheduled in, per thread) — /proc/<pid>/stat counts in 10 ms ticks, too coarse for
/// 10 ms samples — so a latency spike can be lined up with who was busy.
///
/// The sampler must not become the tail it measures: it keeps one descriptor per thread and
/// `pread`s it (the thread list is re-read every 100 ms). Opening and parsing every thread's
/// schedstat and status files per sample, as it first did, cost enough CPU on the shared cores
/// to make p99 at 1,000 msg/s 2.5 ms instead of 0.55 ms.
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

    /// `redis`: one redis-server (column `redis`) or a cluster's primaries (`redis1`, `redis2`, …).
    init(server: Int32?, redis: [Int32], intervalNanos: UInt64 = 10_000_000) {
        var pids: [(String, Int32)] = []
        if let server { pids.append(("server", server)) }
        for (index, pid) in redis.enumerated() { pids.append((redis.count == 1 ? "redis" : "redis\(index + 1)", pid)) }
        pids.append(("bench", getpid()))
        self.pids = pids
        self.intervalNanos = intervalNanos
    }

    /// Samples from now (t = 0 at `origin`, a MonotonicClock time) until `stop`.
    func start(origin: UInt64) {
        let thread = Thread { [self] in
            var readers = pids.map { ThreadStatReader(pid: $0.pid) }
            var machine = MachineStatReader()
            defer {
                for index in readers.indices { readers[index].close() }
                machine.close()
            }
            var previous = readers.indices.map { readers[$0].read() }
            var previousMachine = machine.read()
            var previousTime = MonotonicClock.now()
            var next = previousTime + intervalNanos
            var last = false
            while !last {
                let now = MonotonicClock.now()
                if next > now { usleep(UInt32(min((next - now) / 1_000, 1_000_000))) }
                next += intervalNanos
                // One more sample after `stop`, so even a starved thread leaves a row for the window.
                last = !lock.withLock({ running })
                let time = MonotonicClock.now()
                let current = readers.indices.map { readers[$0].read() }
                let currentMachine = machine.read()
                let elapsed = Double(time - previousTime)
                var values: [Double] = []
                for (before, after) in zip(previous, current) {
                    let delta = Self.delta(before, after)
                    values.append(elapsed > 0 ? Double(delta.cpuNanos) / elapsed : 0)
                    values.append(Double(delta.switches))
                }
                // Every process, and the time the hypervisor gave the vCPUs to someone else.
                let ticksPerSecond = elapsed > 0 ? Double(MachineStatReader.ticksPerSecond) * elapsed / 1e9 : 0
                for (before, after) in [(previousMachine.busy, currentMachine.busy), (previousMachine.steal, currentMachine.steal)] {
                    values.append(ticksPerSecond > 0 && after >= before ? Double(after - before) / ticksPerSecond : 0)
                }
                previousMachine = currentMachine
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

    /// `t_ms,<name>_cores,<name>_switches,…,machine_cores,steal_cores`: cores busy over each
    /// interval, and how many times its threads were scheduled in (schedstat's timeslices: the
    /// context switches onto a CPU); then the whole machine's busy cores and its steal (vCPU time
    /// the hypervisor ran something else) from /proc/stat — in 10 ms ticks, so single rows are
    /// coarse and averages over many rows are what to read.
    var csv: String {
        let header = "t_ms," + pids.map { "\($0.name)_cores,\($0.name)_switches" }.joined(separator: ",")
            + ",machine_cores,steal_cores"
        let rows = lock.withLock { self.rows }
        var lines = [header]
        lines.reserveCapacity(rows.count + 1)
        for row in rows {
            lines.append(([String(format: "%.2f", row.millis)] + row.values.map { String(format: "%.3f", $0) }).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Nanoseconds on CPU and times scheduled in, of one thread or summed.
    typealias Counters = (cpuNanos: UInt64, switches: UInt64)

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

/// One process's per-thread schedstat descriptors, kept open between samples.
struct ThreadStatReader {
    let pid: Int32
    private var descriptors: [String: Int32] = [:]
    private var readsSinceListing = 0
    /// Samples between re-reads of the thread list (threads come and go rarely).
    static let listingEvery = 10

    init(pid: Int32) { self.pid = pid }

    mutating func read() -> [String: CPUSeries.Counters] {
        if descriptors.isEmpty || readsSinceListing >= Self.listingEvery { refreshThreads() }
        readsSinceListing += 1
        var threads: [String: CPUSeries.Counters] = [:]
        var buffer = [UInt8](repeating: 0, count: 128)
        for (thread, descriptor) in descriptors {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0, let counters = Self.parse(buffer[..<count]) else { continue }
            threads[thread] = counters
        }
        return threads
    }

    /// `<ns on cpu> <ns waiting> <timeslices>\n`
    static func parse(_ text: ArraySlice<UInt8>) -> CPUSeries.Counters? {
        let fields = text.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        guard fields.count >= 3, let cpu = UInt64(String(decoding: fields[0], as: UTF8.self)),
              let slices = UInt64(String(decoding: fields[2], as: UTF8.self)) else { return nil }
        return (cpu, slices)
    }

    private mutating func refreshThreads() {
        readsSinceListing = 0
        var current: Set<String> = []
        if let directory = opendir("/proc/\(pid)/task") {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.first?.isNumber == true { current.insert(name) }
            }
            closedir(directory)
        }
        for (thread, descriptor) in descriptors where !current.contains(thread) {
            Glibc.close(descriptor)
            descriptors[thread] = nil
        }
        for thread in current where descriptors[thread] == nil {
            let descriptor = open("/proc/\(pid)/task/\(thread)/schedstat", O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 { descriptors[thread] = descriptor }
        }
    }

    mutating func close() {
        for descriptor in descriptors.values { Glibc.close(descriptor) }
        descriptors.removeAll()
    }
}

/// /proc/stat's first line, kept open: the machine's busy and steal ticks (USER_HZ).
struct MachineStatReader {
    static let ticksPerSecond = max(1, sysconf(Int32(_SC_CLK_TCK)))
    private var descriptor: Int32 = open("/proc/stat", O_RDONLY | O_CLOEXEC)

    /// user + nice + system + irq + softirq, and steal; zeros when unreadable.
    mutating func read() -> (busy: UInt64, steal: UInt64) {
        guard descriptor >= 0 else { return (0, 0) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return (0, 0) }
        return Self.parse(buffer[..<count]) ?? (0, 0)
    }

    /// `cpu  user nice system idle iowait irq softirq steal …`
    static func parse(_ text: ArraySlice<UInt8>) -> (busy: UInt64, steal: UInt64)? {
        let line = text.prefix { $0 != UInt8(ascii: "\n") }
        let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count >= 9, fields[0] == "cpu" else { return nil }
        let numbers = fields[1...8].compactMap { UInt64($0) }
        guard numbers.count == 8 else { return nil }
        return (numbers[0] + numbers[1] + numbers[2] + numbers[5] + numbers[6], numbers[7])
    }

    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
