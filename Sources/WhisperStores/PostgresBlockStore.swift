import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// `blocks` (migrations/0006_blocks.sql); completions come back on `loop`. An add is a
/// transaction on the worker pool (the blocker's row lock, then the checks and the insert);
/// removal and the list are single statements on the loop's sessions.
package final class PostgresBlockStore: BlockStore {
    private let pool: PostgresPool?
    private let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    /// Held until the add's transaction ends, so one blocker's adds run one after the other and
    /// each counts the rows the previous one committed (a count inside one statement could
    /// not: its snapshot predates the wait). `NO KEY UPDATE` leaves foreign-key checks against
    /// the row unblocked.
    package static let lockSQL = "SELECT 1 FROM users WHERE whisper_id = $1 FOR NO KEY UPDATE"

    /// Inserts the pair unless the blocked id is unknown, the pair exists or the blocker is at
    /// `$3`; answers what held, for the outcome.
    package static let addSQL = """
        WITH target AS (SELECT whisper_id FROM users WHERE whisper_id = $2),
             present AS (SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2),
             total AS (SELECT count(*) AS n FROM blocks WHERE blocker_id = $1),
             added AS (
                INSERT INTO blocks (blocker_id, blocked_id)
                SELECT $1, whisper_id FROM target
                WHERE NOT EXISTS (SELECT 1 FROM present) AND (SELECT n FROM total) < $3::bigint
                ON CONFLICT DO NOTHING
                RETURNING 1)
        SELECT EXISTS (SELECT 1 FROM target) AS known, EXISTS (SELECT 1 FROM present) AS present,
               EXISTS (SELECT 1 FROM added) AS added
        """

    package static let removeSQL = "DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2"

    package static let listSQL = "SELECT blocked_id FROM blocks WHERE blocker_id = $1 ORDER BY created_at, blocked_id"

    package func add(_ blocked: WhisperID, by blocker: WhisperID, max: Int, completion: @escaping StoreCompletion<BlockOutcome>) {
        let parameters: [PostgresValue?] = [.text(blocker.string), .text(blocked.string), .int64(Int64(max))]
        pool.transaction(on: loop, completion, { connection throws(PostgresError) -> PostgresRows in
            _ = try connection.query(Self.lockSQL, [.text(blocker.string)])
            return try connection.query(Self.addSQL, parameters)
        }) { rows in
            guard let row = rows.first, let known = row.bool("known"), let present = row.bool("present"),
                  let added = row.bool("added")
            else { return .failure(.unexpectedReply("block insert answered no row")) }
            if added { return .success(.added) }
            if present { return .success(.alreadyBlocked) }
            return .success(known ? .full : .unknownIdentity)
        }
    }

    package func remove(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Bool>) {
        pool.query(Self.removeSQL, [.text(blocker.string), .text(blocked.string)], on: loop, completion) {
            .success($0.affectedRows > 0)
        }
    }

    package func list(of blocker: WhisperID, completion: @escaping StoreCompletion<[WhisperID]>) {
        pool.query(Self.listSQL, [.text(blocker.string)], on: loop, completion) { rows in
            var blocked: [WhisperID] = []
            blocked.reserveCapacity(rows.count)
            for row in rows {
                guard let id = row.string("blocked_id").flatMap(WhisperID.validate) else {
                    return .failure(.unexpectedReply("blocks row without a valid id"))
                }
                blocked.append(id)
            }
            return .success(blocked)
        }
    }
}
