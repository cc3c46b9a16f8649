import WhisperServices
import WhisperStorage

/// Loop 0's sweeper of pending queues that expired whole, and the total behind
/// `whisper_pending_messages` (`PendingSlots`).
///
/// On a standalone Redis: one script sweeps the one index and answers the one counter. On a
/// cluster, each run sweeps the next `slotsPerRun` slots (the whole ring every 128 heartbeats,
/// ≈ 11 min at the default 5 s: a queue's stream expires by itself an hour after its pending
/// TTL, so the sweep only has to take it out of the count and the index, and minutes late is
/// fine) and reads the next `clusterReadsPerRun` slots' counters with one `GET` each (a
/// cluster's `MGET` cannot span slots) — the total is whole 8 heartbeats after start (40 s),
/// and each slot's count at most that old afterwards.
package final class RedisPendingSweep {
    package static let slotsPerRun = 128
    static let clusterReadsPerRun = 2_048
    /// Queues examined per slot and run.
    private static let batch = 100

    private let redis: RedisClient
    private let keys: RedisKeys
    private let pendingTTLMillis: Int64
    private var counts = [Int64](repeating: 0, count: RedisSlot.count)
    private var next = 0
    private var nextRead = 0

    package init(redis: RedisClient, keys: RedisKeys, pendingTTLMillis: Int64) {
        self.redis = redis
        self.keys = keys
        self.pendingTTLMillis = pendingTTLMillis
    }

    /// Sweeps (the next slots) and answers the total pending count.
    package func run(completion: @escaping StoreCompletion<Int64>) {
        guard redis.isCluster else {
            return sweep(index: keys.standalonePendingIndex, count: keys.standalonePendingCount, completion: completion)
        }
        let slots = (next..<next + Self.slotsPerRun).map { $0 % RedisSlot.count }
        next = (next + Self.slotsPerRun) % RedisSlot.count
        let join = Join(completion) { [self] in counts.reduce(0, &+) }
        for slot in slots {
            join.add()
            sweep(index: keys.pendingIndex(slot: slot), count: keys.pendingCount(slot: slot)) { [self] result in
                join.done(result.map { counts[slot] = $0 })
            }
        }
        readCounts(join)
        join.sent()
    }

    private func readCounts(_ join: Join) {
        let first = nextRead
        nextRead = (nextRead + Self.clusterReadsPerRun) % RedisSlot.count
        for slot in first..<first + Self.clusterReadsPerRun {
            join.add()
            redis.send([Array("GET".utf8), keys.pendingCount(slot: slot)]) { [self] result in
                join.done(RedisReplies.value(result).map { counts[slot] = Self.count($0) })
            }
        }
    }

    private static func count(_ value: RedisValue) -> Int64 { value.string.flatMap { Int64($0) } ?? 0 }

    private func sweep(index: [UInt8], count: [UInt8], completion: @escaping StoreCompletion<Int64>) {
        let call = RedisScriptCall(MessageScripts.sweep, keys: { (name: MessageScripts.SweepKey) in
            switch name {
            case .pendingIndex: index
            case .pendingCount: count
            }
        }, arguments: { (name: MessageScripts.SweepArgument) in
            switch name {
            case .pendingTTL: RedisMessageStore.text(pendingTTLMillis)
            case .pendingPrefix: Array(keys.pendingPrefix.utf8)
            case .batch: RedisMessageStore.text(Int64(Self.batch))
            }
        })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let count = value.integer else { return .failure(RedisReplies.unexpected(value)) }
                return .success(count)
            })
        }
    }

    /// The commands of one run: the total once the last has answered, or the first failure.
    private final class Join {
        private var outstanding = 1
        private var failure: StoreError?
        private let completion: StoreCompletion<Int64>
        private let total: () -> Int64

        init(_ completion: @escaping StoreCompletion<Int64>, total: @escaping () -> Int64) {
            self.completion = completion
            self.total = total
        }

        func add() { outstanding += 1 }
        func sent() { finish() }

        func done(_ result: Result<Void, StoreError>) {
            if case .failure(let error) = result, failure == nil { failure = error }
            finish()
        }

        private func finish() {
            outstanding -= 1
            guard outstanding == 0 else { return }
            if let failure { return completion(.failure(failure)) }
            completion(.success(total()))
        }
    }
}
