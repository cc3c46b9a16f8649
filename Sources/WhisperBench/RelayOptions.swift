/// `whisper-bench relay`: pairs of phones, each sender messaging its peer — or, with `groups`,
/// senders that each own a group and send every message as one signed envelope per member.
public struct RelayOptions: Sendable {
    public var pairs = 50
    /// Groups instead of pairs: each has one sender (its owner) and `groupMembers - 1`
    /// recipients, and every envelope is its own stream (a pair sharing the sender).
    public var groups: Int?
    /// Members of each group, the sender included.
    public var groupMembers = 256
    /// Closed loop: messages awaiting `message_accepted` per sender.
    public var inFlight = 4
    /// Open loop instead: the total target rate in messages per second, spread evenly.
    public var rate: Double?
    public var warmupSeconds = 2.0
    public var durationSeconds = 10.0
    /// Sign every message before the timed window, so signing does not compete with the
    /// server for the cores.
    public var presign = true
    /// Closed loop only (the open loop knows its count): how many messages to pre-sign in
    /// total; a sender that runs out signs the rest as it goes (reported).
    public var presignBudget: Int?
    public var ciphertextBytes = 64
    /// After the window: how long to wait for acks, deliveries and receipts still in flight.
    public var settleTimeoutSeconds = 15.0
    /// For `core use`; defaults to the online CPUs.
    public var cores: Int?
    public var probe = ProbeTargets()
    /// Path prefix for the series files (`<prefix>-latency.csv`, `-cpu.csv`, `-percentiles.csv`);
    /// nil: none written.
    public var seriesPrefix: String?

    public init() {}

    /// Sender → recipient streams: the pairs, or one per group member besides the sender.
    var streams: Int { groups.map { $0 * (groupMembers - 1) } ?? pairs }

    /// Phones logged in: two per pair, or each group's members.
    var phones: Int { groups.map { $0 * groupMembers } ?? 2 * pairs }

    /// Closed loop: a generous guess of what the server can take, so pre-signing covers the run.
    static let presignRateGuess = 15_000.0

    /// Messages to pre-sign per sender.
    var presignPerSender: Int {
        let seconds = warmupSeconds + durationSeconds
        let total = rate.map { $0 * seconds * 1.02 + Double(streams) } ?? Double(presignBudget ?? Int(Self.presignRateGuess * seconds))
        return max(inFlight, Int((total / Double(max(1, streams))).rounded(.up)))
    }

    func validate() throws(BenchError) {
        guard pairs >= 1 else { throw .invalidOption("--pairs must be at least 1") }
        if let groups {
            guard (1...10_000).contains(groups), (2...100_000).contains(groupMembers) else {
                throw .invalidOption("--groups must be 1…10000 and --group-members 2…100000")
            }
        }
        guard inFlight >= 1 else { throw .invalidOption("--in-flight must be at least 1") }
        // Upper bounds keep the pre-sign arithmetic far from a trapping conversion.
        guard durationSeconds > 0, durationSeconds <= 86_400, warmupSeconds >= 0, warmupSeconds <= 3_600 else {
            throw .invalidOption("--duration must be in (0, 86400], --warmup in [0, 3600]")
        }
        if let rate { guard rate > 0, rate <= 10_000_000 else { throw .invalidOption("--rate must be in (0, 10000000]") } }
        if let presignBudget {
            guard (0...100_000_000).contains(presignBudget) else { throw .invalidOption("--presign-budget must be 0…100000000") }
        }
        guard (1...8_016).contains(ciphertextBytes) else { throw .invalidOption("--ciphertext-bytes must be 1…8016") }
        // Signed timestamps must stay within the server's ±10 min of its clock.
        guard !presign || warmupSeconds + durationSeconds <= 540 else {
            throw .invalidOption("--presign needs warmup + duration ≤ 540 s (timestamps go stale); use --no-presign")
        }
    }
}
