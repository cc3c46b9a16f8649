import WhisperProtocol
import WhisperStorage

/// The pending-queue bookkeeping is kept per Redis Cluster hash slot (issue #27): every
/// accept, receipt and trim adjusts a counter and an index in the *recipient's* slot, so the
/// step that appends to `pending:{<wid>}` touches keys of one slot only, and the counts of all
/// slots add up to `whisper_pending_messages`. On a standalone Redis the same 16,384 pairs
/// exist (one key layout for both).
///
///     pending-count:{<tag of slot s>}  → messages queued for users of slot s
///     pending-index:{<tag of slot s>}  → users of slot s with a queue, scored by the last append
///
/// The tag of slot s is the shortest base-36 number whose CRC16 lands in s (`PendingSlots.tag`).
/// Servers before 2026-11-27 kept one `pending-count` and one `pending-index` for all users:
/// those "legacy" keys are still read (added to the total) and swept on a standalone Redis,
/// until they are empty (`RedisPendingSweep`); no cluster ever held them.
package enum PendingSlots {
    /// `tag[s]` hashes to slot s.
    package static let tags: [String] = {
        var tags = [String?](repeating: nil, count: RedisSlot.count)
        var found = 0
        var number = 0
        while found < RedisSlot.count {
            let tag = String(number, radix: 36)
            let slot = RedisSlot.of(Array(tag.utf8))
            if tags[slot] == nil {
                tags[slot] = tag
                found += 1
            }
            number += 1
        }
        return tags.map { $0 ?? "" }
    }()

    /// The slot of `user`'s keys (`pending:{<wid>}` and its family).
    package static func slot(of user: WhisperID) -> Int { RedisSlot.of(user.string.utf8) }
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

    /// `pending-count` and `pending-index` as servers before 2026-11-27 wrote them (one pair
    /// for all users): read and swept until empty, never written.
    package var legacyPendingCount: [UInt8] { Array(joined.pendingCount.utf8) }
    package var legacyPendingIndex: [UInt8] { Array(joined.pendingIndex.utf8) }
}
