/// Pure parsers for the /proc files the benchmark reads about other processes (proc(5)).
enum ProcText {
    /// utime + stime in clock ticks from `/proc/<pid>/stat`. `comm` (field 2) may contain
    /// spaces and parentheses, so fields are counted after the last `)`: there, index 0 is
    /// field 3 (state), index 11 utime (field 14), index 12 stime (field 15).
    static func cpuTicks(stat text: String) -> UInt64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return user + system
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
