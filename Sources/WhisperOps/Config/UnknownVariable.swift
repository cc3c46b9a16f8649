/// A `WHISPER_*` environment variable the server does not read — most likely a typo that would
/// otherwise leave a setting silently at its default. Start-up logs one warning per such name
/// (`ServerConfig.logStartupWarnings`), with the known name it is closest to when one is close.
///
/// Names of the repository's own tools are not server settings and are never reported
/// (`toolVariables`): scripts/test, scripts/run, scripts/bench and scripts/fuzz export them into the
/// environment the server inherits, and the backup unit reads its settings from the relay's
/// environment file (docs/operations.md "Configuration").
public struct UnknownVariable: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    /// The known variable the name most likely meant, if one is close enough.
    public var suggestion: String?

    public init(name: String, suggestion: String?) {
        self.name = name
        self.suggestion = suggestion
    }

    public var description: String { suggestion.map { "\(name) (did you mean \($0)?)" } ?? name }

    /// Variables of the repository's tools, not of the server: a name ending in `_` is a prefix,
    /// any other an exact name. A known server variable is never ignored (`WHISPER_TEST_ECHO`).
    public static let toolVariables = [
        // scripts/test and the test harness (Sources/WhisperTesting), its stages and checkers
        "WHISPER_TEST_", "WHISPER_SKIP_", "WHISPER_SERVICES", "WHISPER_AUTOBAHN_", "WHISPER_FUZZ_",
        "WHISPER_INTEROP_", "WHISPER_PYTEST_", "WHISPER_SWIFT_", "WHISPER_SANITIZE", "WHISPER_SERVER_BIN",
        "WHISPER_OPENAPI_", "WHISPER_KEEP_TMP",
        // scripts/lib: package, Python and LocalStack set-up, service start-up
        "WHISPER_REPO_ROOT", "WHISPER_LIB_SOURCED", "WHISPER_CACHE_DIR", "WHISPER_APT_PACKAGES", "WHISPER_PYTHON2",
        "WHISPER_PYTHON3", "WHISPER_PYTHON313", "WHISPER_LOCALSTACK_", "WHISPER_WAIT_TIMEOUT", "WHISPER_PG_FSYNC",
        "WHISPER_PG_MAX_CONNECTIONS",
        // scripts/run (its own PostgreSQL and Redis) and scripts/bench
        "WHISPER_DATA_DIR", "WHISPER_PG_PORT", "WHISPER_REDIS_PORT", "WHISPER_BENCH_",
        // scripts/lib/buildinfo.sh and the container build's arguments (docs/operations.md "Version and build info")
        "WHISPER_BUILD_",
        // deploy/: the backup unit (same environment file) and compose's own interpolation
        "WHISPER_BACKUP_", "WHISPER_TURN_HOST", "WHISPER_TURN_REALM",
    ]

    /// Whether `name` belongs to one of the repository's tools.
    public static func isToolVariable(_ name: String) -> Bool {
        toolVariables.contains { $0.hasSuffix("_") ? name.hasPrefix($0) : name == $0 }
    }

    /// The `WHISPER_*` names of `environment` that are neither in `known` nor tool variables,
    /// sorted, each with its suggestion.
    static func find(in environment: [String: String], known: Set<String>) -> [UnknownVariable] {
        environment.keys.filter { $0.hasPrefix("WHISPER_") && !known.contains($0) && !isToolVariable($0) }.sorted()
            .map { UnknownVariable(name: $0, suggestion: closest(to: $0, among: known)) }
    }

    /// The known name with the fewest edits (insert, delete, substitute, swap two neighbours) from
    /// `name`, when those edits are few: at most 1 for a short name, up to 3 for a long one, so
    /// that `WHISPER_PUBLC_ADDR` gets `WHISPER_PUBLIC_ADDR` but an unrelated name gets nothing.
    /// Ties go to the alphabetically first name, so the warning is the same on every start.
    static func closest(to name: String, among known: Set<String>) -> String? {
        let typed = Array(name.utf8.dropFirst("WHISPER_".utf8.count))
        let allowed = min(3, max(1, typed.count / 3))
        var best: (distance: Int, name: String)?
        for candidate in known {
            let distance = editDistance(typed, Array(candidate.utf8.dropFirst("WHISPER_".utf8.count)), limit: allowed)
            guard distance <= allowed else { continue }
            if let current = best, (current.distance, current.name) <= (distance, candidate) { continue }
            best = (distance, candidate)
        }
        return best?.name
    }

    /// Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one
    /// substring), or `limit + 1` as soon as it must exceed `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
