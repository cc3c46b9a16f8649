import WhisperOps
import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// Device tokens for push (`devices`): the look-up on a loop, and the removal of a dead token,
/// which a sender thread asks for (its completion runs on `loop`).
package final class PostgresPushDevices: PushDevices, Sendable {
    private let pool: PostgresPool?
    private let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    /// The most recently active device holding a token (a login clears the others' tokens).
    package static let deviceSQL = """
        SELECT platform, push_token, voip_token FROM devices
        WHERE whisper_id = $1 AND (push_token IS NOT NULL OR voip_token IS NOT NULL)
        ORDER BY last_active_at DESC LIMIT 1
        """
    /// Only while the row still holds that token: an `update_tokens` in between wins.
    package static let removePushTokenSQL = "UPDATE devices SET push_token = NULL WHERE whisper_id = $1 AND push_token = $2"
    package static let removeVoIPTokenSQL = "UPDATE devices SET voip_token = NULL WHERE whisper_id = $1 AND voip_token = $2"

    package func device(of user: WhisperID, completion: @escaping StoreCompletion<PushDevice?>) {
        pool.query(Self.deviceSQL, [.text(user.string)], on: loop, completion) { rows in
            guard let row = rows.first else { return .success(nil) }
            guard let platform = row.string("platform").flatMap(Platform.init(rawValue:)) else {
                return .failure(.unexpectedReply("devices row of \(user) has no known platform"))
            }
            return .success(PushDevice(platform: platform, pushToken: row.string("push_token"),
                                       voipToken: row.string("voip_token")))
        }
    }

    /// Forgets `job`'s token; any thread.
    package func remove(_ job: PushJob, log: Log) {
        let sql = job.isVoIPToken ? Self.removeVoIPTokenSQL : Self.removePushTokenSQL
        pool.query(sql, [.text(job.user.string), .text(job.token)], on: loop, { (result: Result<Void, StoreError>) in
            if case .failure(let error) = result {
                log.warn("push_token_remove_failed", whisperId: job.user.string, ["reason": .string(error.description)])
            }
        }) { _ in .success(()) }
    }
}
