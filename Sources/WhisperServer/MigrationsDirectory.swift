import Foundation

/// Where the `NNNN_name.sql` files live: `WHISPER_MIGRATIONS_DIR` (`ServerConfig.migrationsDirectory`)
/// if set, else the first of `./migrations`, the source tree next to a SwiftPM build
/// (`.build/<config>/../../migrations`) and `/usr/share/whisper/migrations` that exists.
enum MigrationsDirectory {
    static func locate(explicit: String?) -> String {
        if let explicit { return explicit }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
        let candidates = [
            FileManager.default.currentDirectoryPath + "/migrations",
            executable.deletingLastPathComponent().appendingPathComponent("../../../migrations").standardized.path,
            executable.deletingLastPathComponent().appendingPathComponent("../../migrations").standardized.path,
            "/usr/share/whisper/migrations",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
    }
}
