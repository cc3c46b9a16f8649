import WhisperAdmin
import WhisperOps
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinux

/// Samples the CPU time of the server, Redis and the benchmark itself, and the server's
/// verify histogram, so the relay scenario can say what one relayed message costs.
struct ResourceProbe: Sendable {
    let targets: ProbeTargets
    /// `sysconf(_SC_CLK_TCK)`: the unit of utime/stime in /proc/<pid>/stat.
    let ticksPerSecond: Double

    init(targets: ProbeTargets) {
        self.targets = targets
        ticksPerSecond = Double(max(1, clinux_clock_ticks()))
    }

    func sample() -> ResourceSample {
        var sample = ResourceSample(serverCPUSeconds: targets.serverPid.flatMap(cpuSeconds(pid:)),
                                    redisCPUSeconds: redisCPUSeconds(),
                                    benchCPUSeconds: Self.selfCPUSeconds())
        if let admin = targets.admin {
            do {
                let text = try AdminClient(endpoint: admin).get("/metrics")
                sample.verifySecondsSum = MetricsText.value(of: "whisper_ed25519_verify_seconds_sum", in: text)
                sample.verifyCount = MetricsText.value(of: "whisper_ed25519_verify_seconds_count", in: text)
                if sample.verifySecondsSum == nil || sample.verifyCount == nil {
                    sample.metricsError = "whisper_ed25519_verify_seconds not in /metrics"
                }
            } catch {
                sample.metricsError = error.description
            }
        }
        return sample
    }

    /// Each Redis process's CPU seconds; nil without pids or when one is unreadable.
    func redisCPUSeconds() -> [Double]? {
        let seconds = targets.redisPids.compactMap(cpuSeconds(pid:))
        return seconds.isEmpty || seconds.count != targets.redisPids.count ? nil : seconds
    }

    /// utime + stime of `pid`, in seconds.
    func cpuSeconds(pid: Int32) -> Double? {
        ProcFile.readText("/proc/\(pid)/stat").flatMap(ProcText.cpuTicks(stat:)).map { Double($0) / ticksPerSecond }
    }

    /// VmRSS of `pid`, in bytes.
    static func residentBytes(pid: Int32) -> UInt64? {
        ProcFile.readText("/proc/\(pid)/status").flatMap(ProcText.residentBytes(status:))
    }

    /// This process's user + system CPU (getrusage: microsecond resolution, unlike /proc ticks).
    static func selfCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
