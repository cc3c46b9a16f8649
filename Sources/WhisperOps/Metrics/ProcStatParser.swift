/// Pure parsers for the /proc files `ProcessMetrics` (and whisper-bench, about other
/// processes) reads (proc(5)).
public enum ProcStatParser {
    public struct ProcessStat: Equatable, Sendable {
        public var userTicks: UInt64
        public var systemTicks: UInt64
        public var startTicks: UInt64
        public var virtualBytes: UInt64
        public var residentPages: UInt64
    }

    /// /proc/self/stat: `pid (comm) state ppid …`. `comm` may contain spaces and parentheses, so
    /// fields are counted from the last `)`. After it, field 3 (state) is index 0; utime (14) is
    /// index 11, stime 12, starttime (22) 19, vsize 20, rss 21.
    public static func processStat(_ text: String) -> ProcessStat? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count > 21,
              let user = UInt64(fields[11]), let system = UInt64(fields[12]), let start = UInt64(fields[19]),
              let virtual = UInt64(fields[20]), let resident = Int64(fields[21])
        else { return nil }
        return ProcessStat(userTicks: user, systemTicks: system, startTicks: start, virtualBytes: virtual,
                           residentPages: UInt64(max(resident, 0)))
    }

    /// /proc/stat: the `btime <seconds>` line.
    static func bootTime(systemStat text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingASCIIWhitespace())
        }
        return nil
    }

    /// /proc/self/limits: the soft limit of `Max open files  1024  4096  files`; nil when
    /// unlimited or absent.
    static func maxOpenFiles(limits text: String) -> UInt64? {
        for line in text.split(separator: "\n") where line.hasPrefix("Max open files") {
            let fields = line.dropFirst("Max open files".count).split(separator: " ")
            return fields.first.flatMap { UInt64($0) }
        }
        return nil
    }
}
