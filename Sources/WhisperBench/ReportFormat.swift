/// Number formatting for the human summary (no Foundation `String(format:)` needed).
enum ReportFormat {
    /// `value` with `digits` decimals, rounded half away from zero.
    static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0..<max(0, digits) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let whole = UInt64(scaled)
        let integer = whole / UInt64(scale)
        let fraction = whole % UInt64(scale)
        var text = (value < 0 && scaled > 0 ? "-" : "") + String(integer)
        if digits > 0 {
            let digitsText = String(fraction)
            text += "." + String(repeating: "0", count: digits - digitsText.count) + digitsText
        }
        return text
    }

    /// A rate with a sensible number of decimals: `12345`, `123.4`, `1.23`.
    static func rate(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        if abs(value) >= 1000 { return fixed(value, digits: 0) }
        if abs(value) >= 10 { return fixed(value, digits: 1) }
        return fixed(value, digits: 2)
    }

    /// Bytes as MiB/KiB.
    static func bytes(_ value: Double) -> String {
        if abs(value) >= 1_048_576 { return fixed(value / 1_048_576, digits: 1) + " MiB" }
        if abs(value) >= 1_024 { return fixed(value / 1_024, digits: 1) + " KiB" }
        return fixed(value, digits: 0) + " B"
    }
}
