internal import CLinux

/// The standard `process_*` metrics, read from /proc at each scrape:
///
/// | metric | source |
/// |---|---|
/// | `process_cpu_seconds_total` | /proc/self/stat utime + stime, in clock ticks |
/// | `process_resident_memory_bytes` | /proc/self/stat rss pages × page size |
/// | `process_virtual_memory_bytes` | /proc/self/stat vsize |
/// | `process_open_fds` | entries of /proc/self/fd (minus the one used to list it) |
/// | `process_max_fds` | soft "Max open files" of /proc/self/limits |
/// | `process_start_time_seconds` | /proc/stat btime + /proc/self/stat starttime ticks |
///
/// A value whose source cannot be read is left out rather than reported as 0.
public struct ProcessMetrics: MetricsCollector {
    private let procRoot: String
    private let pageSize: Double
    private let ticksPerSecond: Double
    /// Boot time never changes, so it is read once.
    private let bootTimeSeconds: Double?

    public init() {
        self.init(procRoot: "/proc", pageSize: Int(clinux_page_size()), ticksPerSecond: Int(clinux_clock_ticks()))
    }

    init(procRoot: String, pageSize: Int, ticksPerSecond: Int) {
        self.procRoot = procRoot
        self.pageSize = Double(max(pageSize, 1))
        self.ticksPerSecond = Double(max(ticksPerSecond, 1))
        bootTimeSeconds = ProcFile.readText(procRoot + "/stat").flatMap(ProcStatParser.bootTime(systemStat:))
    }

    public func collect() -> [CollectedMetric] {
        var metrics: [CollectedMetric] = []
        if let text = ProcFile.readText(procRoot + "/self/stat"), let stat = ProcStatParser.processStat(text) {
            metrics.append(CollectedMetric(
                name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.",
                kind: .counter, value: Double(stat.userTicks + stat.systemTicks) / ticksPerSecond))
            metrics.append(CollectedMetric(
                name: "process_resident_memory_bytes", help: "Resident memory size in bytes.",
                kind: .gauge, value: Double(stat.residentPages) * pageSize))
            metrics.append(CollectedMetric(
                name: "process_virtual_memory_bytes", help: "Virtual memory size in bytes.",
                kind: .gauge, value: Double(stat.virtualBytes)))
            if let bootTimeSeconds {
                metrics.append(CollectedMetric(
                    name: "process_start_time_seconds",
                    help: "Start time of the process since unix epoch in seconds.",
                    kind: .gauge, value: bootTimeSeconds + Double(stat.startTicks) / ticksPerSecond))
            }
        }
        if let entries = ProcFile.countEntries(procRoot + "/self/fd") {
            metrics.append(CollectedMetric(
                name: "process_open_fds", help: "Number of open file descriptors.",
                kind: .gauge, value: Double(max(0, entries - 1))))
        }
        if let text = ProcFile.readText(procRoot + "/self/limits"), let limit = ProcStatParser.maxOpenFiles(limits: text) {
            metrics.append(CollectedMetric(
                name: "process_max_fds", help: "Maximum number of open file descriptors.",
                kind: .gauge, value: Double(limit)))
        }
        return metrics
    }
}
