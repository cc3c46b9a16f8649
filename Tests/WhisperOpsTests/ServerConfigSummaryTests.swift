import Testing
@testable import WhisperOps

@Suite struct ServerConfigSummaryTests {
    static let secrets = ["dbpass", "redispass", "admintoken", "turnsecret", "s3secret", "AKIAEXAMPLE"]

    @Test func redactedSummary_neverContainsSecrets() throws {
        let config = try loadConfig([
            "WHISPER_DATABASE_URL": "postgres://whisper:dbpass@db:5432/whisper?password=dbpass",
            "WHISPER_REDIS_URL": "redis://:redispass@redis:6379/1",
            "WHISPER_ADMIN_TOKEN": "admintoken",
            "WHISPER_TURN_SECRET": "turnsecret",
            "WHISPER_TURN_URLS": "turn:t.example:3478",
            "WHISPER_S3_BUCKET": "bucket",
            "WHISPER_S3_ACCESS_KEY": "AKIAEXAMPLE",
            "WHISPER_S3_SECRET_KEY": "s3secret",
        ])
        let text = config.redactedSummary().map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        for secret in Self.secrets {
            #expect(!text.contains(secret), "summary leaks \(secret)")
        }
        let summary = Dictionary(uniqueKeysWithValues: config.redactedSummary())
        #expect(summary["database"] == "postgres://whisper:***@db:5432/whisper?password=***")
        #expect(summary["redis"] == "redis://:***@redis:6379/1")
        #expect(summary["adminToken"] == "set")
        #expect(summary["rate.send"] == "100/10 ip 1000/10")
    }

    @Test func secretsInConfig_printRedacted() throws {
        let config = try loadConfig(["WHISPER_ADMIN_TOKEN": "admintoken", "WHISPER_TURN_SECRET": "turnsecret",
                                     "WHISPER_TURN_URLS": "stun:s.example",
                                     "WHISPER_DATABASE_URL": "postgres://u:dbpass@h/db"])
        var dumped = ""
        dump(config, to: &dumped)
        let described = "\(config) \(String(reflecting: config))"
        for secret in ["admintoken", "turnsecret", "dbpass"] {
            #expect(!dumped.contains(secret) && !described.contains(secret), "leaks \(secret)")
        }
        #expect(described.contains("postgres://u:***@h/db"))
        #expect("\(Secret("x"))" == "<redacted>")
    }

    @Test func testEcho_isFlaggedLoudly() throws {
        let summary = Dictionary(uniqueKeysWithValues: try loadConfig(["WHISPER_TEST_ECHO": "yes"]).redactedSummary())
        #expect(summary["testEcho"] == "ON (TEST ONLY, never in production)")
    }

    @Test(arguments: [
        ("postgres://u:p@h/db", "postgres://u:***@h/db"),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("postgresql://h/db?user=u&password=p&sslmode=require", "postgresql://h/db?user=u&password=***&sslmode=require"),
        ("postgres://u:p%40ss@[::1]:5432/db", "postgres://u:***@[::1]:5432/db"),
        ("postgres:///db?host=/run/postgresql", "postgres:///db?host=/run/postgresql"),
    ] as [(String, String)])
    func urlRedaction_hidesPasswords(url: String, redacted: String) {
        #expect(URLRedaction.redact(url) == redacted)
    }
}
