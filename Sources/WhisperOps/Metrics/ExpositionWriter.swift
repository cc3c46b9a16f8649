/// Prometheus text exposition format 0.0.4: `# HELP` / `# TYPE` per family, then one sample per
/// line `name{label="value",…} value`.
struct ExpositionWriter {
    private(set) var text = ""

    mutating func header(name: String, help: String, type: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, labelNames: [String], values: [String],
                         extra: (name: String, value: String)? = nil, value: String) {
        text += name
        if !labelNames.isEmpty || extra != nil {
            text += "{"
            var first = true
            for (label, labelValue) in zip(labelNames, values) {
                if !first { text += "," }
                first = false
                text += "\(label)=\"\(Self.escapeLabelValue(labelValue))\""
            }
            if let extra {
                if !first { text += "," }
                text += "\(extra.name)=\"\(Self.escapeLabelValue(extra.value))\""
            }
            text += "}"
        }
        text += " \(value)\n"
    }

    /// HELP text escapes `\` and line feed.
    static func escapeHelp(_ help: String) -> String {
        var out = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Label values escape `\`, `"` and line feed.
    static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Go-style shortest form: integral values without `.0`, `+Inf`, `-Inf`, `NaN`.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }
}
