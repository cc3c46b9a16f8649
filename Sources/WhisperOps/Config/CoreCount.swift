import Glibc

/// The number of cores this process may actually use, for the `WHISPER_THREADS` default:
/// the CPU affinity mask (`Cpus_allowed_list` in /proc/self/status) capped by a cgroup v2 CPU
/// quota (`/sys/fs/cgroup/cpu.max`), falling back to the online CPU count.
enum CoreCount {
    static func active() -> Int {
        var count = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        if let status = ProcFile.readText("/proc/self/status"),
           let allowed = allowedCPUs(status: status) {
            count = allowed
        }
        if let cpuMax = ProcFile.readText("/sys/fs/cgroup/cpu.max"), let quota = quotaCores(cpuMax: cpuMax) {
            count = min(count, quota)
        }
        return max(1, count)
    }

    /// Counts the CPUs in `Cpus_allowed_list:\t0-3,8,10-11`.
    static func allowedCPUs(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }),
              let colon = line.firstIndex(of: ":")
        else { return nil }
        var total = 0
        for range in line[line.index(after: colon)...].trimmingASCIIWhitespace().split(separator: ",") {
            let bounds = range.split(separator: "-")
            guard let low = bounds.first.flatMap({ Int($0) }), let high = bounds.last.flatMap({ Int($0) }),
                  bounds.count <= 2, high >= low, high - low < 1 << 20
            else { return nil }
            total += high - low + 1
        }
        return total > 0 ? total : nil
    }

    /// `"200000 100000"` → 2 (rounded up); `"max 100000"` → nil (no quota).
    static func quotaCores(cpuMax: String) -> Int? {
        let fields = cpuMax.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]),
              quota > 0, period > 0
        else { return nil }
        return max(1, (quota + period - 1) / period)
    }
}
