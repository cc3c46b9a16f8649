import Foundation
import Testing
import WhisperOps
import WhisperTesting

/// What a binary says it is (docs/operations.md "Version and build info"): `--version` and the
/// `whisper_build_info` gauge. Under scripts/test the commit is the one it compiled in
/// (`WHISPER_TEST_BUILD_COMMIT`), so a build that lost it fails here.
@Suite struct BuildInfoTests {
    /// The commit scripts/test wrote into the build; nil for a plain `swift test`.
    static var expectedCommit: String? { ProcessInfo.processInfo.environment["WHISPER_TEST_BUILD_COMMIT"] }

    @Test func buildInfo_carriesTheCommitTheBuildWasGiven() {
        let build = BuildInfo.current
        #expect(build.version == BuildInfo.sourceVersion && !build.version.isEmpty)
        if let expected = Self.expectedCommit {
            #expect(build.commit == expected && build.commit != "unknown")
            #expect(build.date.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression) != nil, "\(build.date)")
        }
    }

    @Test func versionFlag_printsTheVersionCommitAndBuildDate() async throws {
        let build = BuildInfo.current
        let outcome = try await Subprocess.capture(try BuiltProducts.whisperServer, ["--version"])
        #expect(outcome.exitStatus == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == "whisper-server \(build.version) (commit \(build.commit), built \(build.date))\n",
                "\(outcome.stdout)")
        if let expected = Self.expectedCommit { #expect(outcome.stdout.contains("commit \(expected),")) }
    }

    @Test func theFirstScrape_hasTheBuildInfoGauge() async throws {
        let build = BuildInfo.current
        let server = try await TestServer()
        defer { server.stop() }
        let scrape = try TestHTTP.get(port: server.adminPort, "/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.text.contains("# TYPE whisper_build_info gauge\n"))
        let series = #"whisper_build_info{version="\#(build.version)",commit="\#(build.commit)",build_date="\#(build.date)"} 1"#
        #expect(scrape.text.contains(series + "\n"), "\(scrape.text.split(separator: "\n").filter { $0.contains("build_info") })")
    }
}
