/// `whisper-bench drain`: a backlog for one offline user, then how fast it pages out.
public struct DrainOptions: Sendable {
    /// Messages queued for the offline user. The server must allow that many pending
    /// (`WHISPER_MAX_PENDING_PER_USER`, default 10000).
    public var messages = 20_000
    /// `fetch_pending` page size, 1…200.
    public var page = 200
    public var senders = 4
    /// Unanswered sends per sender while filling the queue.
    public var inFlight = 8
    public var ciphertextBytes = 64
    /// Give up filling when no send has been answered for this long.
    public var stallSeconds = 30.0

    public init() {}

    func validate() throws(BenchError) {
        guard messages >= 1 else { throw .invalidOption("--messages must be at least 1") }
        guard (1...200).contains(page) else { throw .invalidOption("--page must be 1…200") }
        guard senders >= 1, inFlight >= 1 else { throw .invalidOption("--senders and --in-flight must be at least 1") }
        guard (1...8_016).contains(ciphertextBytes) else { throw .invalidOption("--ciphertext-bytes must be 1…8016") }
    }

    /// How many of the messages sender `index` sends.
    func share(of index: Int) -> Int {
        messages / senders + (index < messages % senders ? 1 : 0)
    }
}
