/// Typed access to the environment with the house rules applied in one place: an empty value
/// means unset, parsed values are trimmed, secrets are taken verbatim, and every failure is a
/// one-line `ConfigError` naming the variable.
///
/// It also remembers every name it was asked for (`askedNames`): the variables the
/// configuration knows are exactly the ones its loaders read, so the list that the unknown-variable
/// warning checks against cannot drift from the code (docs/operations.md "Configuration").
struct EnvironmentReader {
    let environment: [String: String]
    private let asked = AskedNames()

    init(environment: [String: String]) {
        self.environment = environment
    }

    /// Every name `raw` or `trimmed` (and so every typed accessor) was called with.
    var askedNames: Set<String> { asked.names }

    /// The raw value; nil when unset or empty. For secrets and paths, which are not trimmed.
    func raw(_ name: String) -> String? {
        asked.names.insert(name)
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The value without surrounding whitespace; nil when unset or blank.
    func trimmed(_ name: String) -> String? {
        asked.names.insert(name)
        guard let value = environment[name] else { return nil }
        let trimmed = value.trimmingASCIIWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Names present with the given prefix, sorted so errors are deterministic.
    func names(withPrefix prefix: String) -> [String] {
        environment.keys.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// `1|true|yes` and `0|false|no`, case-insensitive (docs/operations.md "Configuration").
    func bool(_ name: String, default defaultValue: Bool) throws(ConfigError) -> Bool {
        guard let text = trimmed(name) else { return defaultValue }
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw ConfigError.invalid(name, expected: "one of 1|true|yes|0|false|no", got: text)
        }
    }

    /// A decimal integer in `range` (digits only: no sign, no exponent, no separators).
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let text = trimmed(name) else { return defaultValue }
        guard text.utf8.count <= 18,
              text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let value = Int(text), range.contains(value)
        else {
            let expected = range.lowerBound == 1
                ? "a positive integer up to \(range.upperBound)"
                : "an integer from \(range.lowerBound) to \(range.upperBound)"
            throw ConfigError.invalid(name, expected: expected, got: text)
        }
        return value
    }

    /// A listen address (`host:port` or `[v6]:port`).
    func address(_ name: String, default defaultValue: SocketAddressSpec) throws(ConfigError) -> SocketAddressSpec {
        guard let text = trimmed(name) else { return defaultValue }
        guard let address = SocketAddressSpec.parse(text) else {
            throw ConfigError.invalid(name, expected: SocketAddressSpec.expectation, got: text)
        }
        return address
    }
}

/// The names one `EnvironmentReader` was asked for; a class so that the reader, passed by value
/// to every loader, records into one set. Used on the loading thread only.
private final class AskedNames {
    var names: Set<String> = []
}
