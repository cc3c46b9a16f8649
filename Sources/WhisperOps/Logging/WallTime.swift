import Glibc

/// A wall-clock instant (CLOCK_REALTIME): log timestamps and the protocol's epoch times. Not for measuring durations: use
/// the monotonic clock for those.
public struct WallTime: Sendable, Equatable {
    public var secondsSinceEpoch: Int64
    public var nanoseconds: Int32

    public init(secondsSinceEpoch: Int64, nanoseconds: Int32) {
        self.secondsSinceEpoch = secondsSinceEpoch
        self.nanoseconds = nanoseconds
    }

    public static func now() -> WallTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return WallTime(secondsSinceEpoch: Int64(spec.tv_sec), nanoseconds: Int32(truncatingIfNeeded: spec.tv_nsec))
    }

    /// Milliseconds since the epoch, the protocol's timestamps (`serverTime`, message
    /// `timestamp`).
    public var epochMillis: Int64 { secondsSinceEpoch * 1000 + Int64(nanoseconds / 1_000_000) }

    /// Microseconds since the epoch: routing latency is measured across nodes with it.
    public var epochMicros: Int64 { secondsSinceEpoch * 1_000_000 + Int64(nanoseconds / 1_000) }

    /// RFC 3339 UTC with milliseconds: `2026-11-03T14:05:09.042Z`.
    public var rfc3339: String {
        var bytes: [UInt8] = []
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the RFC 3339 form without allocating a String (the log line builder's path).
    func appendRFC3339(to bytes: inout [UInt8]) {
        let days = secondsSinceEpoch >= 0 ? secondsSinceEpoch / 86_400 : (secondsSinceEpoch - 86_399) / 86_400
        let secondOfDay = secondsSinceEpoch - days * 86_400
        let (year, month, day) = Self.civil(daysSinceEpoch: days)
        appendDigits(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(Int64(min(max(nanoseconds, 0), 999_999_999) / 1_000_000), width: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Days since 1970-01-01 → proleptic Gregorian (year, month, day); H. Hinnant's
    /// `civil_from_days`, exact for every Int64 day count a clock can produce.
    static func civil(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private func appendDigits(_ value: Int64, width: Int, to bytes: inout [UInt8]) {
        var digits: [UInt8] = []
        var rest = value < 0 ? 0 : value
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10))
            rest /= 10
        } while rest > 0
        while digits.count < width { digits.append(UInt8(ascii: "0")) }
        bytes.append(contentsOf: digits.reversed())
    }
}
