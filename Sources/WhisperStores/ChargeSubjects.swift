import WhisperProtocol
import WhisperServices
import WhisperStorage

/// A rate-limit charge's buckets by the slot they live in on a Redis Cluster: the user's own
/// (`id:<user>`, in the user's slot) and each other subject's (an address: `ip:<address>`, in
/// a slot of its own). A charge has one or two subjects, so they are told apart by comparing,
/// without a dictionary, and written straight into each step's command.
struct ChargeSubjects {
    let buckets: [RateLimitBucket]
    let user: WhisperID
    /// The subjects other than the user's, once each, in the charge's order.
    let others: [String]

    init(_ buckets: [RateLimitBucket], user: WhisperID) {
        self.buckets = buckets
        self.user = user
        var others: [String] = []
        for bucket in buckets where !Self.isUser(bucket.subject, user) && !others.contains(bucket.subject) {
            others.append(bucket.subject)
        }
        self.others = others
    }

    /// `id:<user>`, compared without building it (as contiguous bytes: this runs per bucket of
    /// every message).
    private static func isUser(_ subject: String, _ user: WhisperID) -> Bool {
        var subject = subject, id = user.string
        return subject.withUTF8 { subject in
            id.withUTF8 { id in
                subject.count == id.count + 3 && subject.starts(with: "id:".utf8) && subject.dropFirst(3).elementsEqual(id)
            }
        }
    }

    /// Whether `bucket` is `subject`'s; nil names the user's own.
    private func belongs(_ bucket: RateLimitBucket, to subject: String?) -> Bool {
        guard let subject else { return Self.isUser(bucket.subject, user) }
        return bucket.subject == subject
    }

    /// The `ratelimit:` keys of `subject`'s buckets (nil: the user's), in the charge's order.
    func writeKeys(of subject: String?, _ keys: RedisKeys, into command: inout RedisCommand) {
        for bucket in buckets where belongs(bucket, to: subject) { keys.rateLimit(bucket, into: &command) }
    }

    /// Their count/window pairs, as `RedisRateLimitStore.limitArguments` writes them.
    func writeLimits(of subject: String?, into command: inout RedisCommand) {
        for bucket in buckets where belongs(bucket, to: subject) { RedisRateLimitStore.limitArguments(of: bucket, into: &command) }
    }

    /// The first of `subject`'s keys: a key of its slot, where a step needs one it does not read.
    func writeFirstKey(of subject: String, _ keys: RedisKeys, into command: inout RedisCommand) {
        guard let bucket = buckets.first(where: { belongs($0, to: subject) }) else { return }
        keys.rateLimit(bucket, into: &command)
    }
}
