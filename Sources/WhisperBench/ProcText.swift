import WhisperOps

/// Pure parsers for the /proc files the benchmark reads about other processes (proc(5)).
enum ProcText {
    /// utime + stime in clock ticks from `/proc/<pid>/stat` (`ProcStatParser`, shared with
    /// the server's `process_*` metrics).
    static func cpuTicks(stat text: String) -> UInt64? {
        ProcStatParser.processStat(text).map { $0.userTicks + $0.systemTicks }
    }

    /// Resident set size in bytes from `/proc/<pid>/status` (`VmRSS:   123456 kB`).
    static func residentBytes(status text: String) -> UInt64? {
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.dropFirst("VmRSS:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first, let kilobytes = UInt64(first) else { return nil }
            let unit = fields.count > 1 ? fields[1].lowercased() : "kb"
            guard unit == "kb" else { return nil }
            return kilobytes * 1024
        }
        return nil
    }
}
