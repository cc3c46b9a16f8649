/// What one relay shard hands back to the orchestrator.
struct RelayShardResult: Sendable {
    var counters: RelayCounters
    var errors: ErrorTally
    var acceptLatency: LatencyRecorder
    var acceptSeries: LatencySeries
    var receiveLatency: LatencyRecorder
    /// Accepted but never received, live or by the final sweep.
    var lost: Int
    /// Received although the sender never saw it accepted (e.g. its ack was an error).
    var unacknowledgedReceived: Int

    static func merged(_ results: [RelayShardResult]) -> RelayShardResult {
        var total = RelayShardResult(counters: RelayCounters(), errors: ErrorTally(), acceptLatency: LatencyRecorder(), acceptSeries: LatencySeries(),
                                     receiveLatency: LatencyRecorder(), lost: 0, unacknowledgedReceived: 0)
        for result in results {
            total.counters += result.counters
            total.errors.merge(result.errors)
            total.acceptLatency.merge(result.acceptLatency)
            total.acceptSeries.merge(result.acceptSeries)
            total.receiveLatency.merge(result.receiveLatency)
            total.lost += result.lost
            total.unacknowledgedReceived += result.unacknowledgedReceived
        }
        return total
    }
}
