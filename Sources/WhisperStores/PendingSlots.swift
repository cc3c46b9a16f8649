import WhisperProtocol
import WhisperStorage

/// The pending-queue bookkeeping on a Redis Cluster (issue #27) is kept per hash slot: every
/// accept, receipt and trim adjusts a counter and an index in the *recipient's* slot, so the
/// step that appends to `pending:{<wid>}` touches keys of one slot only, and the counts of all
/// slots add up to `whisper_pending_messages`.
///
///     pending-count:{<tag of slot s>}  → messages queued for users of slot s
///     pending-index:{<tag of slot s>}  → users of slot s with a queue, scored by the last append
///
/// The tag of slot s is the shortest base-36 number whose CRC16 lands in s (`PendingSlots.tag`).
/// A standalone Redis keeps the one pair for all users, `pending-count` and `pending-index`:
/// reading 16,384 counters there would cost every node's heartbeat 650 KB of requests for
/// nothing (one shard), and a standalone Redis never moves to a cluster in place.
package enum PendingSlots {
    /// `tag[s]` hashes to slot s.
    package static let tags: [String] = {
        var tags = [String?](repeating: nil, count: RedisSlot.count)
        var found = 0
        var number = 0
        while found < RedisSlot.count {
            let tag = String(number, radix: 36)
            let slot = RedisSlot.of(tag)
            if tags[slot] == nil {
                tags[slot] = tag
                found += 1
            }
            number += 1
        }
        return tags.map { $0 ?? "" }
    }()

    /// The slot of `user`'s keys (`pending:{<wid>}` and its family).
    package static func slot(of user: WhisperID) -> Int { RedisSlot.of(user.string) }
}

extension RedisKeys {
    /// `pending-count:{<tag>}` of slot `slot`.
    package func pendingCount(slot: Int) -> [UInt8] { Array((joined.pendingCount + ":{" + PendingSlots.tags[slot] + "}").utf8) }

    /// `pending-index:{<tag>}` of slot `slot`.
    package func pendingIndex(slot: Int) -> [UInt8] { Array((joined.pendingIndex + ":{" + PendingSlots.tags[slot] + "}").utf8) }

    /// The counter of `user`'s slot, written straight into a command (the message path).
    package func pendingCount(of user: WhisperID, into command: inout RedisCommand) {
        command.append(joined.pendingCount, ":{", PendingSlots.tags[PendingSlots.slot(of: user)], "}")
    }

    package func pendingIndex(of user: WhisperID, into command: inout RedisCommand) {
        command.append(joined.pendingIndex, ":{", PendingSlots.tags[PendingSlots.slot(of: user)], "}")
    }

    package func pendingCount(of user: WhisperID) -> [UInt8] { pendingCount(slot: PendingSlots.slot(of: user)) }
    package func pendingIndex(of user: WhisperID) -> [UInt8] { pendingIndex(slot: PendingSlots.slot(of: user)) }

    /// `pending-count` and `pending-index`: the one pair for all users of a standalone Redis.
    package var standalonePendingCount: [UInt8] { Array(joined.pendingCount.utf8) }
    package var standalonePendingIndex: [UInt8] { Array(joined.pendingIndex.utf8) }

    /// The counter and index `user`'s queue is counted in: the one pair on a standalone Redis,
    /// its slot's on a cluster.
    package func pendingCount(of user: WhisperID, cluster: Bool) -> [UInt8] { cluster ? pendingCount(of: user) : standalonePendingCount }
    package func pendingIndex(of user: WhisperID, cluster: Bool) -> [UInt8] { cluster ? pendingIndex(of: user) : standalonePendingIndex }
}
