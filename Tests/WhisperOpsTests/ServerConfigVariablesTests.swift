import Foundation
import Testing
@testable import WhisperOps

/// The known variables are the names the configuration reads (`ServerConfig.knownVariables`),
/// and the operator-facing lists agree with them: docs/operations.md's table, and what the
/// repository's scripts and deploy files put into the server's environment.
@Suite struct ServerConfigVariablesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every optional feature on, every setting given, consistent with each other.
    static let everything: [String: String] = {
        var environment: [String: String] = [:]
        for name in ServerConfig.knownVariables where name.hasPrefix("WHISPER_RATE_") { environment[name] = "5/1" }
        return environment.merging([
            "WHISPER_PUBLIC_ADDR": "127.0.0.1:1", "WHISPER_ADMIN_ADDR": "127.0.0.1:2",
            "WHISPER_DATABASE_URL": "postgres://h/db", "WHISPER_REDIS_URL": "redis://h:1/0", "WHISPER_REDIS_PREFIX": "p:",
            "WHISPER_ADMIN_TOKEN": "t", "WHISPER_TLS_CERT": "/c", "WHISPER_TLS_KEY": "/k",
            "WHISPER_TURN_SECRET": "s", "WHISPER_TURN_URLS": "turn:h:3478", "WHISPER_TURN_TTL_SECONDS": "60",
            "WHISPER_S3_ENDPOINT": "http://h", "WHISPER_S3_REGION": "r", "WHISPER_S3_BUCKET": "bkt",
            "WHISPER_S3_ACCESS_KEY": "a", "WHISPER_S3_SECRET_KEY": "b", "WHISPER_S3_PATH_STYLE": "1",
            "WHISPER_S3_PUBLIC_ENDPOINT": "https://p",
            "WHISPER_APNS_KEY_FILE": "/a.p8", "WHISPER_APNS_KEY_ID": "K", "WHISPER_APNS_TEAM_ID": "T",
            "WHISPER_APNS_TOPIC": "o.e", "WHISPER_APNS_ENDPOINT": "https://a", "WHISPER_FCM_CREDENTIALS_FILE": "/f.json",
            "WHISPER_FCM_ENDPOINT": "https://f", "WHISPER_PUSH_CA_FILE": "/ca.pem", "WHISPER_PUSH_COALESCE_SECONDS": "2",
            "WHISPER_LOG_LEVEL": "debug", "WHISPER_THREADS": "2", "WHISPER_MIGRATE_ON_START": "1",
            "WHISPER_MIGRATIONS_DIR": "/m", "WHISPER_PG_POOL_SIZE": "2", "WHISPER_PG_LOOP_SESSIONS": "1",
            "WHISPER_DRAIN_TIMEOUT_SECONDS": "1", "WHISPER_TEST_ECHO": "0",
            "WHISPER_MAX_TEXT_BYTES": "100", "WHISPER_PENDING_TTL_SECONDS": "3600",
        ]) { $1 }
    }()

    @Test func knownVariables_areTheNamesTheLoadersRead() {
        let known = ServerConfig.knownVariables
        for name in ["WHISPER_PUBLIC_ADDR", "WHISPER_S3_PATH_STYLE", "WHISPER_APNS_ENDPOINT", "WHISPER_FCM_ENDPOINT",
                     "WHISPER_MIGRATIONS_DIR", "WHISPER_MAX_TEXT_BYTES", "WHISPER_RATE_BACKUP_IP", "WHISPER_TEST_ECHO"] {
            #expect(known.contains(name), "\(name)")
        }
        for action in RateLimitAction.allCases {
            for scope in RateLimitScope.allCases { #expect(known.contains(scope.variable(for: action))) }
        }
        #expect(known.allSatisfy { $0.hasPrefix("WHISPER_") && (!UnknownVariable.isToolVariable($0) || $0 == "WHISPER_TEST_ECHO") })
    }

    /// A variable read only when another is set would be missing from `knownVariables` (it is
    /// taken from a load of the empty environment) and draw a false warning.
    @Test func everyRead_isUnconditional() throws {
        let config = try loadConfig(Self.everything)
        #expect(config.push.apns != nil && config.push.fcm != nil && config.s3 != nil && config.tls != nil && config.turn != nil)
        #expect(config.unrecognizedVariables.isEmpty)
        #expect(ServerConfig.askedNames(environment: Self.everything) == ServerConfig.knownVariables)
    }

    @Test func operationsGuide_listsEveryKnownVariable_andNoOther() throws {
        let guide = try String(contentsOf: Self.repository.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        guard let start = guide.range(of: "\n## Configuration\n"), let end = guide.range(of: "\n### Rate limits\n") else {
            Issue.record("docs/operations.md has no Configuration section")
            return
        }
        let rows = guide[start.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.hasPrefix("| `") }
        let listed = Set(rows.flatMap { Self.variableNames(in: String($0)) })
        let known = ServerConfig.knownVariables.filter { !$0.hasPrefix("WHISPER_RATE_") }  // one `<ACTION>` row
        #expect(known.subtracting(listed).sorted() == [], "read by the server but not in the table")
        #expect(listed.subtracting(known).sorted() == [], "in the table but not read by the server")
        let section = guide[start.upperBound..<end.lowerBound]
        #expect(UnknownVariable.toolVariables.filter { !section.contains("`\($0)`") } == [], "ignored but not documented")
    }

    /// scripts/run, scripts/test and the deploy examples must not draw the warning.
    @Test func scriptsAndDeployFiles_setOnlyKnownOrToolVariables() throws {
        var names: Set<String> = []
        for folder in ["scripts", "deploy"] {
            let root = Self.repository.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                names.formUnion(Self.variableNames(in: text))
            }
        }
        #expect(names.contains("WHISPER_PG_FSYNC") && names.contains("WHISPER_DATABASE_URL"), "the scan found nothing")
        let unknown = names.filter { !ServerConfig.knownVariables.contains($0) && !UnknownVariable.isToolVariable($0) }
        #expect(unknown.sorted() == [])
    }

    /// Whole `WHISPER_*` names in `text`; a name ending in `_` (`WHISPER_RATE_<ACTION>`,
    /// `WHISPER_S3_*`) is a pattern, not a variable.
    static func variableNames(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let found = rest.range(of: "WHISPER_") {
            let tail = rest[found.upperBound...]
            let body = tail.prefix { ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_" }
            let name = "WHISPER_" + body
            if !body.isEmpty, !name.hasSuffix("_"), tail.dropFirst(body.count).first.map({ $0 != "<" && $0 != "*" }) ?? true {
                names.append(name)
            }
            rest = tail.dropFirst(body.count)
        }
        return names
    }
}
