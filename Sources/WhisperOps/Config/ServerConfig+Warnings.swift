extension ServerConfig {
    /// Lines for settings that load but deserve an operator's eye, logged once at start-up:
    /// one `config_unknown_variable` (warn) per `WHISPER_*` name the server does not read, with
    /// the known name it probably meant, and `test_echo_mode` when the test-only echo is on.
    public func logStartupWarnings(_ log: Log) {
        for unknown in unrecognizedVariables {
            if let suggestion = unknown.suggestion {
                log.warn("config_unknown_variable", ["variable": .string(unknown.name), "didYouMean": .string(suggestion)])
            } else {
                log.warn("config_unknown_variable", ["variable": .string(unknown.name)])
            }
        }
        if testEcho { log.warn("test_echo_mode", ["note": "WHISPER_TEST_ECHO is for conformance tests only"]) }
    }
}
