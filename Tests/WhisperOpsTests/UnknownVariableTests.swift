import Testing
@testable import WhisperOps

/// The start-up warning for `WHISPER_*` names the server does not read (docs/operations.md "Configuration").
@Suite struct UnknownVariableTests {
    @Test(arguments: [
        ("WHISPER_PUBLC_ADDR", "WHISPER_PUBLIC_ADDR"),  // a letter dropped
        ("WHISPER_THRAEDS", "WHISPER_THREADS"),  // two letters swapped
        ("WHISPER_LOG_LVL", "WHISPER_LOG_LEVEL"),
        ("WHISPER_TLS_CRT", "WHISPER_TLS_CERT"),
        ("WHISPER_MAX_TXT_BYTES", "WHISPER_MAX_TEXT_BYTES"),
        ("WHISPER_PENDING_TTL_SECOND", "WHISPER_PENDING_TTL_SECONDS"),
    ])
    func typo_getsTheClosestKnownName(_ typed: String, _ meant: String) throws {
        let config = try loadConfig([typed: "1"])
        #expect(config.unrecognizedVariables == [UnknownVariable(name: typed, suggestion: meant)])
    }

    @Test(arguments: ["WHISPER_FOO", "WHISPER_APNS_KEY", "WHISPER_SOMETHING_ELSE_ENTIRELY", "WHISPER_"])
    func distantName_isReportedWithoutASuggestion(_ typed: String) throws {
        #expect(try loadConfig([typed: "1"]).unrecognizedVariables == [UnknownVariable(name: typed, suggestion: nil)])
    }

    @Test func toolVariables_andOtherPrefixes_areNotReported() throws {
        let config = try loadConfig([
            "WHISPER_TEST_DATABASE_URL": "postgresql://x@h/db", "WHISPER_SKIP_INTEROP": "1", "WHISPER_SERVICES": "/s",
            "WHISPER_PG_FSYNC": "on", "WHISPER_DATA_DIR": "/d", "WHISPER_BACKUP_KEEP": "7", "WHISPER_BENCH_PAIRS": "2",
            "WHISPER_TEST_ECHO": "0", "HOME": "/root", "whisper_threads": "2",
        ])
        #expect(config.unrecognizedVariables.isEmpty)
        // Exact tool names do not hide their neighbours.
        #expect(try loadConfig(["WHISPER_PG_FSYNCS": "on"]).unrecognizedVariables.map(\.name) == ["WHISPER_PG_FSYNCS"])
    }

    @Test func isToolVariable_matchesPrefixesAndExactNamesOnly() {
        #expect(UnknownVariable.isToolVariable("WHISPER_TEST_S3_BUCKET"))
        #expect(UnknownVariable.isToolVariable("WHISPER_PYTHON313"))
        #expect(UnknownVariable.isToolVariable("WHISPER_REDIS_PORT"))
        #expect(!UnknownVariable.isToolVariable("WHISPER_REDIS_PORTS"))
        #expect(!UnknownVariable.isToolVariable("WHISPER_TEST"))
    }

    @Test func editDistance_countsInsertionsDeletionsSubstitutionsAndSwaps() {
        func distance(_ a: String, _ b: String, limit: Int = 10) -> Int {
            UnknownVariable.editDistance(Array(a.utf8), Array(b.utf8), limit: limit)
        }
        #expect(distance("THREADS", "THREADS") == 0)
        #expect(distance("THREADS", "THRAEDS") == 1)
        #expect(distance("THREADS", "THREAD") == 1)
        #expect(distance("THREADS", "TREADS") == 1)
        #expect(distance("THREADS", "THREADZ") == 1)
        #expect(distance("", "AB") == 2)
        #expect(distance("KITTEN", "SITTING") == 3)
        // Beyond the limit the answer is only "more than the limit".
        #expect(distance("KITTEN", "SITTING", limit: 1) == 2)
        #expect(distance("A", "ABCDEF", limit: 2) == 3)
    }

    @Test func startupWarnings_logOneLinePerUnknownVariable_namingItAndTheClosestName() throws {
        let config = try loadConfig(["WHISPER_PUBLC_ADDR": "0.0.0.0:1", "WHISPER_ZZZ": "1", "WHISPER_THREADS": "2"])
        let sink = MemoryLogSink()
        config.logStartupWarnings(Log(level: .info, sink: sink))
        #expect(sink.lines.count == 2)
        #expect(sink.lines[0].contains(#""level":"warn","event":"config_unknown_variable","variable":"WHISPER_PUBLC_ADDR","didYouMean":"WHISPER_PUBLIC_ADDR"}"#),
                "\(sink.lines)")
        #expect(sink.lines[1].contains(#""level":"warn","event":"config_unknown_variable","variable":"WHISPER_ZZZ"}"#),
                "\(sink.lines)")
    }

    @Test func startupWarnings_areSilent_whenEveryVariableIsKnown() throws {
        let sink = MemoryLogSink()
        try loadConfig(["WHISPER_THREADS": "2", "WHISPER_TEST_REDIS_URL": "redis://h"]).logStartupWarnings(Log(sink: sink))
        #expect(sink.lines.isEmpty)
    }
}
