import Foundation

/// One versioned SQL file, `NNNN_name.sql`: four digits, an underscore, a name of
/// lower-case letters, digits and underscores.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Parses a file name; nil when it does not match `NNNN_name.sql`.
    static func parseFileName(_ fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        let parts = stem.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 4,
              parts[0].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let version = Int(parts[0]), version > 0,
              !parts[1].isEmpty,
              parts[1].utf8.allSatisfy({ c in
                  (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
                      || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
              })
        else { return nil }
        return (version, String(parts[1]))
    }

    /// Reads every `*.sql` file of `directory`, sorted by version. Any other `.sql` name, a
    /// duplicate version or an unreadable file is an error: a typo must stop the deploy,
    /// not silently skip a migration. Files not ending in `.sql` (README) are ignored.
    public static func load(directory: String) throws(MigrationError) -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .unreadable(path: directory, reason: "\(error)")
        }
        var byVersion: [Int: Migration] = [:]
        for fileName in names.sorted() where fileName.hasSuffix(".sql") {
            guard let parsed = parseFileName(fileName) else { throw .malformedName(fileName) }
            if let existing = byVersion[parsed.version] {
                throw .duplicateVersion(parsed.version, existing.name, parsed.name)
            }
            let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .unreadable(path: path, reason: "cannot read file")
            }
            byVersion[parsed.version] = Migration(version: parsed.version, name: parsed.name,
                                                  sql: String(decoding: data, as: UTF8.self))
        }
        return byVersion.values.sorted { $0.version < $1.version }
    }
}

/// Why migrations could not be loaded or applied.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case malformedName(String)
    case duplicateVersion(Int, String, String)
    /// Applying `version` failed; its transaction was rolled back.
    case failed(version: Int, PostgresError)
    case database(PostgresError)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read migrations at \(path): \(reason)"
        case .malformedName(let name): return "migration file name \(name) is not NNNN_name.sql"
        case .duplicateVersion(let version, let a, let b):
            return "migration version \(version) appears twice (\(a), \(b))"
        case .failed(let version, let error): return "migration \(version) failed: \(error)"
        case .database(let error): return "migration bookkeeping failed: \(error)"
        }
    }
}
