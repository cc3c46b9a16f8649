/// The relay scenario's numbers: rates over the measured window, latencies of messages sent
/// in it, correctness over the whole run, and the cost per message when the server's
/// process was given.
public struct RelayResult: Sendable {
    public var options: RelayOptions
    public var connection: ConnectionOptions
    public var windowSeconds: Double
    /// The window's start on the wall clock (Unix ms), to line the series up with logs of
    /// other processes (scripts/bench-plot marks Redis's AOF rewrites with it).
    public var windowStartUnixMillis: Int64
    public var logins: LoginTally
    public var presigned: Int
    public var counters: RelayCounters
    public var errors: ErrorTally
    /// send → `message_accepted`, µs.
    public var acceptLatency: LatencySummary
    /// send → `message_received` at the recipient, µs.
    public var receiveLatency: LatencySummary
    public var lost: Int
    public var unacknowledgedReceived: Int
    /// Everything in flight came back before the settle timeout.
    public var settled: Bool
    public var cost: RelayCost?

    init(options: RelayOptions, connection: ConnectionOptions, windowSeconds: Double, windowStartUnixMillis: Int64,
         logins: LoginTally, presigned: Int, total: RelayShardResult, settled: Bool, cost: RelayCost?) {
        self.options = options
        self.connection = connection
        self.windowSeconds = windowSeconds
        self.windowStartUnixMillis = windowStartUnixMillis
        self.logins = logins
        self.presigned = presigned
        counters = total.counters
        errors = total.errors
        acceptLatency = total.acceptLatency.summary
        receiveLatency = total.receiveLatency.summary
        lost = total.lost
        unacknowledgedReceived = total.unacknowledgedReceived
        self.settled = settled
        self.cost = cost
    }

    public var duplicated: Int { counters.duplicates }
    public var passed: Bool { errors.isEmpty && lost == 0 && duplicated == 0 && settled }

    public var acceptedPerSecond: Double { Double(counters.acceptedInWindow) / windowSeconds }
    public var deliveredPerSecond: Double { Double(counters.receivedInWindow) / windowSeconds }
    public var receiptsPerSecond: Double { Double(counters.deliveredInWindow) / windowSeconds }

    public var report: BenchReport {
        let who = options.groups.map {
            "\($0) groups × \(options.groupMembers) members (\(options.streams) envelope streams; a message counts per envelope)"
        } ?? "\(options.pairs) pairs"
        let perStream = options.groups == nil ? "per sender" : "per envelope stream"
        let mode = options.rate.map { "open loop at \(ReportFormat.rate($0)) msg/s" } ?? "closed loop, \(options.inFlight) in flight \(perStream)"
        var summary = [
            "\(scenario): \(who), \(mode), \(connection.threads) client thread(s), warm-up \(ReportFormat.rate(options.warmupSeconds)) s, window \(ReportFormat.rate(windowSeconds)) s",
            "  accepted   \(ReportFormat.rate(acceptedPerSecond)) msg/s   (message_accepted at the sender)",
            "  delivered  \(ReportFormat.rate(deliveredPerSecond)) msg/s   (message_received at the recipient)",
            "  receipts   \(ReportFormat.rate(receiptsPerSecond)) msg/s   (message_delivered at the sender)",
            "  send → accepted  \(acceptLatency.line)",
            "  send → received  \(receiveLatency.line)",
            "  sent \(counters.sent), accepted \(counters.accepted), received \(counters.received), receipted \(counters.receiptsAccepted), delivered \(counters.delivered)",
            "  lost \(lost), duplicated \(duplicated), recovered by sweep \(counters.recoveredBySweep), still pending \(counters.pendingAfterSettle), settled \(settled ? "yes" : "NO")",
            "  errors: \(errors.line)",
        ]
        if counters.signedLive > 0 {
            summary.append("  note: \(counters.signedLive) messages were signed during the run (pre-signed supply ran out; raise --presign-budget)")
        }
        if counters.skippedBackpressure > 0 {
            summary.append("  note: \(counters.skippedBackpressure) open-loop sends skipped (a sender had \(RelayShard.openLoopMaxInFlight) unanswered)")
        }
        if let cost { summary += cost.summaryLines }
        return BenchReport(scenario: scenario, passed: passed, summary: summary, json: json)
    }

    /// `group` in group mode, where every number counts envelopes.
    private var scenario: String { options.groups == nil ? "relay" : "group" }

    private var json: ReportObject {
        var object = ReportObject([
            ("pairs", options.groups == nil ? .int(options.pairs) : .null),
            ("groups", options.groups.map { .int($0) } ?? .null),
            ("group_members", options.groups == nil ? .null : .int(options.groupMembers)),
            ("streams", .int(options.streams)), ("in_flight", options.rate == nil ? .int(options.inFlight) : .null),
            ("rate_target", options.rate.map { .double($0) } ?? .null),
            ("threads", .int(connection.threads)), ("deflate", .bool(connection.offerDeflate)),
            ("warmup_s", .double(options.warmupSeconds)), ("window_s", .double(windowSeconds)),
            ("window_start_unix_ms", .int(Int(windowStartUnixMillis))),
            ("presigned", .int(presigned)),
            ("accepted_per_s", .double(acceptedPerSecond)), ("delivered_per_s", .double(deliveredPerSecond)),
            ("receipts_per_s", .double(receiptsPerSecond)),
            ("latency_accept", .object(acceptLatency.report)), ("latency_receive", .object(receiveLatency.report)),
            ("lost", .int(lost)), ("duplicated", .int(duplicated)), ("settled", .bool(settled)),
            ("unacknowledged_received", .int(unacknowledgedReceived)),
            ("errors", .object(errors.report)), ("counters", .object(counters.report)),
            ("login_latency", .object(logins.latencySummary.report)),
        ])
        object.append("cost", cost.map { .object($0.report) } ?? .null)
        return object
    }
}

extension RelayCounters {
    var report: ReportObject {
        ReportObject([
            ("sent", .int(sent)), ("sent_in_window", .int(sentInWindow)),
            ("accepted", .int(accepted)), ("accepted_in_window", .int(acceptedInWindow)),
            ("received", .int(received)), ("received_in_window", .int(receivedInWindow)),
            ("receipts_accepted", .int(receiptsAccepted)), ("receipts_accepted_in_window", .int(receiptsAcceptedInWindow)),
            ("delivered", .int(delivered)), ("delivered_in_window", .int(deliveredInWindow)),
            ("duplicate_acks", .int(duplicateAcks)), ("duplicate_delivered", .int(duplicateDelivered)),
            ("send_errors", .int(sendErrors)), ("receipt_errors", .int(receiptErrors)),
            ("recovered_by_sweep", .int(recoveredBySweep)), ("pending_after_settle", .int(pendingAfterSettle)),
            ("signed_live", .int(signedLive)), ("skipped_backpressure", .int(skippedBackpressure)),
        ])
    }
}
