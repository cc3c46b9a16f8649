/// CPU counters and the server's verify timing at one instant (an edge of the window).
struct ResourceSample: Sendable, Equatable {
    var serverCPUSeconds: Double?
    /// Per `ProbeTargets.redisPids`, in order; nil when any of them could not be read.
    var redisCPUSeconds: [Double]?
    var benchCPUSeconds: Double
    /// `whisper_ed25519_verify_seconds_sum` / `_count` (every 16th verify, thread CPU time).
    var verifySecondsSum: Double?
    var verifyCount: Double?
    /// Why the metrics could not be read, if they could not.
    var metricsError: String?
}
