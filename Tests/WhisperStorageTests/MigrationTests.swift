import Foundation
import Testing
@testable import WhisperStorage

@Suite("Migration files (no server)")
struct MigrationTests {
    @Test func load_sortsByVersion_andIgnoresNonSQLFiles() throws {
        let directory = try MigrationFixtures.directory([
            "0010_later.sql": "SELECT 10;",
            "0002_second.sql": "SELECT 2;",
            "0001_first.sql": "SELECT 1;",
            "README.md": "not a migration",
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let migrations = try Migration.load(directory: directory)
        #expect(migrations.map(\.version) == [1, 2, 10])
        #expect(migrations.map(\.name) == ["first", "second", "later"])
        #expect(migrations[0].sql == "SELECT 1;")
    }

    @Test(arguments: ["1_short.sql", "0001-dash.sql", "0001_.sql", "0001_Upper.sql", "00001_five.sql",
                      "0000_zero.sql", "abcd_name.sql", "0001_sp ace.sql"])
    func load_rejectsMalformedNames(_ fileName: String) throws {
        let directory = try MigrationFixtures.directory(["0002_ok.sql": "SELECT 1;", fileName: "SELECT 1;"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: MigrationError.malformedName(fileName)) {
            _ = try Migration.load(directory: directory)
        }
    }

    @Test func load_rejectsDuplicateVersions() throws {
        let directory = try MigrationFixtures.directory(["0003_a.sql": "SELECT 1;", "0003_b.sql": "SELECT 1;"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: MigrationError.duplicateVersion(3, "a", "b")) {
            _ = try Migration.load(directory: directory)
        }
    }

    @Test func load_missingDirectory_isAnError() {
        #expect(throws: MigrationError.self) {
            _ = try Migration.load(directory: "/nonexistent/whisper-migrations")
        }
    }

    @Test func repositoryMigrations_loadCleanly() throws {
        let migrations = try Migration.load(directory: MigrationFixtures.repositoryDirectory)
        #expect(migrations.first?.version == 1)
        #expect(migrations.first?.name == "init")
    }
}

enum MigrationFixtures {
    /// The repository's `migrations/`, found from this file's path.
    static var repositoryDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("migrations").path
    }

    static func directory(_ files: [String: String]) throws -> String {
        let path = NSTemporaryDirectory() + "whisper-migrations-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, contents) in files {
            try contents.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
        }
        return path
    }
}
