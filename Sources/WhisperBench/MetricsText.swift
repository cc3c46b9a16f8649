/// Reads samples from Prometheus text exposition (format 0.0.4): enough to pick the value of
/// one series out of `/metrics`, e.g. `whisper_ed25519_verify_seconds_sum`.
enum MetricsText {
    /// The value of the series whose name (with labels, exactly as exposed, when given) is
    /// `series`: `whisper_errors_total{code="AUTH_FAILED"}` or `process_cpu_seconds_total`.
    /// Comments, other series and a trailing timestamp are skipped; nil when absent.
    static func value(of series: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") {
            guard !line.hasPrefix("#"), line.hasPrefix(series) else { continue }
            let rest = line.dropFirst(series.count)
            // `foo_sum` must not match `foo_sum_extra` nor `foo{…}` when asked for bare `foo`.
            guard let first = rest.first, first == " " || first == "\t" else { continue }
            let fields = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let valueText = fields.first else { continue }
            return parseValue(valueText)
        }
        return nil
    }

    /// Prometheus values are Go floats: `1.5e-05`, `+Inf`, `NaN`.
    static func parseValue(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default: return Double(text)
        }
    }
}
