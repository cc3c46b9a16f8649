import CBuildInfo

/// What this binary is (docs/operations.md "Version and build info"): `whisper-server --version`
/// prints it and `/metrics` exports it as `whisper_build_info{version,commit,build_date} 1`.
/// The version is the source's; the commit and date come from the build (`CBuildInfo`, written by
/// scripts/lib/buildinfo.sh), "unknown" for a plain `swift build` of a clean clone.
public struct BuildInfo: Sendable, Equatable, CustomStringConvertible {
    /// The release this source is; bumped when one is cut.
    public static let sourceVersion = "0.1.0"

    public static let current = BuildInfo(version: sourceVersion, commit: String(cString: whisper_build_commit()),
                                          date: String(cString: whisper_build_date()))

    public let version: String
    public let commit: String
    public let date: String

    public init(version: String, commit: String, date: String) {
        self.version = version
        self.commit = commit
        self.date = date
    }

    /// `0.1.0 (commit 4707c0a1b2c3, built 2026-11-26T19:30:00Z)`.
    public var description: String { "\(version) (commit \(commit), built \(date))" }
}
