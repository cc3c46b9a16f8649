import WhisperServices
import WhisperStorage

/// Loop 0's sweeper of pending queues that expired whole, slot by slot (`PendingSlots`), and
/// the total behind `whisper_pending_messages`.
///
/// Each run sweeps the next `slotsPerRun` slots (the whole ring every 128 heartbeats, ≈ 11 min
/// at the default 5 s: a queue's stream expires by itself an hour after its pending TTL, so
/// the sweep only has to take it out of the count and the index, and minutes late is fine).
/// Then it reads the slots' counters: on a standalone Redis all of them, with 16 `MGET`s of
/// 1,024 keys (≈ 2 ms of Redis time); on a cluster, whose `MGET` cannot span slots, the next
/// `clusterReadsPerRun` with one `GET` each — the total is whole 8 heartbeats after start
/// (40 s), and each slot's count at most that old afterwards.
package final class RedisPendingSweep {
    package static let slotsPerRun = 128
    static let clusterReadsPerRun = 2_048
    /// Queues examined per slot and run.
    private static let batch = 100
    private static let chunk = 1_024

    private let redis: RedisClient
    private let keys: RedisKeys
    private let pendingTTLMillis: Int64
    private var counts = [Int64](repeating: 0, count: RedisSlot.count)
    private var legacyCount: Int64 = 0
    private var next = 0
    private var nextRead = 0

    package init(redis: RedisClient, keys: RedisKeys, pendingTTLMillis: Int64) {
        self.redis = redis
        self.keys = keys
        self.pendingTTLMillis = pendingTTLMillis
    }

    /// Sweeps the next slots and answers the total pending count.
    package func run(completion: @escaping StoreCompletion<Int64>) {
        let slots = (next..<next + Self.slotsPerRun).map { $0 % RedisSlot.count }
        next = (next + Self.slotsPerRun) % RedisSlot.count
        let join = Join(completion) { [self] in counts.reduce(0, &+) &+ legacyCount }
        for slot in slots {
            join.add()
            sweep(index: keys.pendingIndex(slot: slot), count: keys.pendingCount(slot: slot)) { [self] result in
                join.done(result.map { counts[slot] = $0 })
            }
        }
        readCounts(join)
        // Only servers before 2026-11-27 wrote the legacy pair, and never to a cluster.
        if !redis.isCluster {
            join.add()
            sweep(index: keys.legacyPendingIndex, count: keys.legacyPendingCount) { [self] result in
                join.done(result.map { legacyCount = $0 })
            }
        }
        join.sent()
    }

    private func readCounts(_ join: Join) {
        guard !redis.isCluster else {
            let first = nextRead
            nextRead = (nextRead + Self.clusterReadsPerRun) % RedisSlot.count
            for slot in first..<first + Self.clusterReadsPerRun {
                join.add()
                redis.send([Array("GET".utf8), keys.pendingCount(slot: slot)]) { [self] result in
                    join.done(RedisReplies.value(result).map { counts[slot] = Self.count($0) })
                }
            }
            return
        }
        for first in stride(from: 0, to: RedisSlot.count, by: Self.chunk) {
            let slots = first..<min(first + Self.chunk, RedisSlot.count)
            join.add()
            redis.send([Array("MGET".utf8)] + slots.map { keys.pendingCount(slot: $0) }) { [self] result in
                join.done(RedisReplies.value(result).flatMap { value in
                    guard let items = value.array, items.count == slots.count else { return .failure(RedisReplies.unexpected(value)) }
                    for (slot, item) in zip(slots, items) { counts[slot] = Self.count(item) }
                    return .success(())
                })
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
