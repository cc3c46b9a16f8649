import Testing
import WhisperOps

@Suite struct ConfigFileTests {
    @Test func parse_readsKeyValueLinesCommentsQuotesAndExport() throws {
        let values = try ConfigFile.parse("""
            # whisper config
            WHISPER_THREADS=4

            export WHISPER_LOG_LEVEL = "debug"
            WHISPER_ADMIN_TOKEN='a b=c'
            WHISPER_TURN_URLS=turn:a:3478,turns:b:5349
            """)
        #expect(values == [
            "WHISPER_THREADS": "4", "WHISPER_LOG_LEVEL": "debug", "WHISPER_ADMIN_TOKEN": "a b=c",
            "WHISPER_TURN_URLS": "turn:a:3478,turns:b:5349",
        ])
    }

    @Test func parse_reportsTheLineNumberWithoutTheValue() {
        #expect(throws: ConfigError.fileSyntax(line: 2, reason: "expected KEY=VALUE")) {
            try ConfigFile.parse("WHISPER_THREADS=1\nsecretvalue\n")
        }
        #expect(throws: ConfigError.fileSyntax(line: 1, reason: "keys must be WHISPER_* names of A-Z, 0-9 and _")) {
            try ConfigFile.parse("PATH=/bin")
        }
        #expect(throws: ConfigError.fileSyntax(line: 2, reason: "WHISPER_THREADS is set twice")) {
            try ConfigFile.parse("WHISPER_THREADS=1\nWHISPER_THREADS=2")
        }
    }

    @Test func merged_letsTheEnvironmentWin() {
        let merged = ConfigFile.merged(file: ["WHISPER_THREADS": "2", "WHISPER_LOG_LEVEL": "warn"],
                                       environment: ["WHISPER_THREADS": "8"])
        #expect(merged == ["WHISPER_THREADS": "8", "WHISPER_LOG_LEVEL": "warn"])
    }
}
