import Foundation

/// A 3-primary + 3-replica Redis Cluster of the test's own (scripts/services redis-cluster), for
/// tests that kill or reshard nodes; `body` gets its seeds URL and its folder (`<folder>/<port>/`
/// per node, with `redis.pid`). Stopped and deleted afterwards, whether `body` returned or threw.
public func withPrivateCluster<T>(_ body: (_ url: String, _ directory: String) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-cluster-\(UUID().uuidString)").path
    let script = try TestEnvironment.servicesScript
    return try await withCleanup {
        let output = try await Subprocess.run(script, ["redis-cluster", "start", directory])
        let url = output.split(separator: "\n").last.map(String.init) ?? ""
        guard url.hasPrefix("redis://") else { throw Subprocess.Failure(description: "no cluster URL: \(output)") }
        return try await body(url, directory)
    } cleanup: {
        _ = try? await Subprocess.run(script, ["redis-cluster", "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Starts the killed or stopped node `port` of the private cluster in `directory` again and
/// waits until the cluster is whole (a primary whose replica took over rejoins as its replica).
public func restartClusterNode(directory: String, port: Int) async throws {
    _ = try await Subprocess.run(try TestEnvironment.servicesScript, ["redis-cluster", "restart", directory, String(port)])
}
