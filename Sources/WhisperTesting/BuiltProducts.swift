import Foundation

/// The executables SwiftPM built beside the test bundle, for tests that run them as a user
/// would (`whisper-server admin …`). `swift build` / `swift test` put every product of the
/// package in the same directory as the test runner.
public enum BuiltProducts {
    public static var whisperServer: String {
        get throws { try path("whisper-server") }
    }

    /// The `whisper` CLI (WhisperClient's executable).
    public static var whisper: String {
        get throws { try path("whisper") }
    }

    static func path(_ name: String) throws -> String {
        let runner = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                         ?? CommandLine.arguments[0])
        var directory = runner.deletingLastPathComponent()
        // On macOS the runner sits inside `<name>.xctest/Contents/MacOS`.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        let candidate = directory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw Subprocess.Failure(description: "\(name) is not built at \(candidate): run `swift build` first (scripts/test does)")
        }
        return candidate
    }
}
