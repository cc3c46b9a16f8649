/// Why a configuration could not be loaded. Start-up stops and prints `description`, which is
/// always exactly one line that starts with the variable's name, e.g.
/// `WHISPER_THREADS: expected a positive integer, got "x"`.
///
/// Values echoed back are sanitized (control characters escaped, truncated) and never contain a
/// secret: secret-bearing variables are echoed redacted or not at all.
public enum ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The variable is set but its value does not parse. `got` is already safe to print.
    case invalidValue(variable: String, expected: String, got: String)
    /// A variable that the other settings (or the command) require is not set.
    case missing(variable: String, reason: String)
    /// The value parses but contradicts another setting.
    case conflict(variable: String, reason: String)
    /// A `WHISPER_RATE_*` name whose action is unknown: a typo must not silently keep the default.
    case unknownVariable(variable: String, hint: String)

    /// The variable the error is about.
    public var variable: String {
        switch self {
        case .invalidValue(let variable, _, _), .missing(let variable, _),
             .conflict(let variable, _), .unknownVariable(let variable, _):
            return variable
        }
    }

    public var description: String {
        switch self {
        case .invalidValue(let variable, let expected, let got):
            return "\(variable): expected \(expected), got \"\(got)\""
        case .missing(let variable, let reason):
            return "\(variable): not set; \(reason)"
        case .conflict(let variable, let reason):
            return "\(variable): \(reason)"
        case .unknownVariable(let variable, let hint):
            return "\(variable): unknown variable; \(hint)"
        }
    }

    /// Builds `.invalidValue` with `raw` made printable on one line.
    static func invalid(_ variable: String, expected: String, got raw: String) -> ConfigError {
        .invalidValue(variable: variable, expected: expected, got: printable(raw))
    }

    /// Escapes control characters and quotes and truncates, so an echoed value can neither break
    /// the one-line guarantee nor flood the terminal.
    static func printable(_ raw: String, maxCharacters: Int = 80) -> String {
        var out = ""
        var count = 0
        for scalar in raw.unicodeScalars {
            if count == maxCharacters {
                out += "…"
                break
            }
            count += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                    || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
