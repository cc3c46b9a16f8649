/// IMF-fixdate formatting for the `Date` field (RFC 9110 §5.6.7), without Foundation:
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
public enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"] // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func imfFixdate(secondsSince1970 seconds: Int64) -> String {
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        return "\(weekday), \(pad2(day)) \(months[month - 1]) \(pad4(year)) "
            + "\(pad2(Int(secondOfDay / 3600))):\(pad2(Int(secondOfDay % 3600 / 60))):\(pad2(Int(secondOfDay % 60))) GMT"
    }

    /// Howard Hinnant's `civil_from_days`: proleptic Gregorian date of a day count since 1970-01-01.
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func pad4(_ n: Int64) -> String {
        let s = String(n)
        return s.count >= 4 ? s : String(repeating: "0", count: 4 - s.count) + s
    }
}
