@testable import WhisperOps

/// Loads with a fixed core count so defaults do not depend on the machine.
func loadConfig(_ environment: [String: String]) throws(ConfigError) -> ServerConfig {
    try ServerConfig.load(environment: environment, defaultThreads: 3)
}

/// The error loading `environment` produces, or nil if it loads.
func configError(_ environment: [String: String]) -> ConfigError? {
    do {
        _ = try loadConfig(environment)
        return nil
    } catch {
        return error
    }
}
