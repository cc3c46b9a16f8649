/// The optional config file (docs/operations.md "Configuration"): the same `WHISPER_*` keys as the environment, one
/// `KEY=VALUE` per line; blank lines and `#` comments are ignored, an `export ` prefix is allowed,
/// and a value may be wrapped in single or double quotes (taken literally, no escapes).
/// The environment wins over the file: `merged(file:environment:)`.
public enum ConfigFile {
    /// Parses the file's text. Errors give the line number, never the value (it may be a secret).
    public static func parse(_ text: String) throws(ConfigError) -> [String: String] {
        var values: [String: String] = [:]
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = rawLine.trimmingASCIIWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = String(line.dropFirst("export ".count)).trimmingASCIIWhitespace() }
            guard let equals = line.firstIndex(of: "=") else {
                throw .fileSyntax(line: lineNumber, reason: "expected KEY=VALUE")
            }
            let key = line[..<equals].trimmingASCIIWhitespace()
            guard key.hasPrefix("WHISPER_"), key.utf8.allSatisfy(isKeyByte) else {
                throw .fileSyntax(line: lineNumber, reason: "keys must be WHISPER_* names of A-Z, 0-9 and _")
            }
            var value = line[line.index(after: equals)...].trimmingASCIIWhitespace()
            for quote in ["\"", "'"] where value.count >= 2 && value.hasPrefix(quote) && value.hasSuffix(quote) {
                value = String(value.dropFirst().dropLast())
            }
            guard values.updateValue(value, forKey: key) == nil else {
                throw .fileSyntax(line: lineNumber, reason: "\(key) is set twice")
            }
        }
        return values
    }

    /// File values overlaid by the environment (the environment wins).
    public static func merged(file: [String: String], environment: [String: String]) -> [String: String] {
        file.merging(environment) { _, fromEnvironment in fromEnvironment }
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_")
    }
}
