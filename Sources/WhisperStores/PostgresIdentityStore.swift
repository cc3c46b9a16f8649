import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// `users`, `devices`, `bans` and `deleted_identities` through the PostgreSQL pool;
/// completions come back on `loop`.
package final class PostgresIdentityStore: IdentityStore {
    private let pool: PostgresPool?
    private let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    /// A ban is in force when its `until` is NULL (permanent) or still in the future.
    package static let findSQL = """
        SELECT u.enc_public_key, u.sign_public_key,
               EXISTS (SELECT 1 FROM bans b
                       WHERE b.whisper_id = u.whisper_id AND (b.until IS NULL OR b.until > now())) AS banned
        FROM users u WHERE u.whisper_id = $1
        """

    /// Collision-safe on both unique keys: a taken id, or a signing key that a
    /// seed-recoverable identity already holds (`users_sign_public_key_recoverable_key`,
    /// migration 0005 — a concurrent first registration with the same keys waits for the
    /// other and then loses here), inserts nothing (0 rows), and the caller looks the keys
    /// up again before minting another id. An id with any ban row or that belonged to a
    /// deleted identity is never handed out either. The first device row goes in with the
    /// identity, in the same statement (one round trip and one commit per registration); its
    /// foreign key is checked at the end of the statement, when the user row exists.
    package static let createSQL = """
        WITH created AS (
            INSERT INTO users (whisper_id, enc_public_key, sign_public_key)
            SELECT $1::text, $2, $3
            WHERE NOT EXISTS (SELECT 1 FROM bans WHERE whisper_id = $1::text)
              AND NOT EXISTS (SELECT 1 FROM deleted_identities WHERE whisper_id = $1::text)
            ON CONFLICT DO NOTHING
            RETURNING whisper_id)
        INSERT INTO devices (whisper_id, device_id, platform, push_token, voip_token)
        SELECT whisper_id, $4::uuid, $5, $6, $7 FROM created
        """

    /// Seed-only login: the identity reachable by this signing key (at most one, by the
    /// partial unique index).
    package static let findBySignKeySQL = "SELECT whisper_id FROM users WHERE sign_public_key = $1 AND seed_recoverable"

    /// Recovery login: keys and ban checked, and the device upserted only when both pass,
    /// in one statement, which also clears the push tokens of the identity's other devices
    /// (single active device). No row: unknown identity. Absent push tokens keep the stored ones
    /// (`update_tokens` changes them).
    package static let recoverSQL = """
        WITH identity AS (
            SELECT u.whisper_id, (u.enc_public_key = $2 AND u.sign_public_key = $3) AS keys_match,
                   EXISTS (SELECT 1 FROM bans b
                           WHERE b.whisper_id = u.whisper_id AND (b.until IS NULL OR b.until > now())) AS banned
            FROM users u WHERE u.whisper_id = $1),
        recorded AS (
            INSERT INTO devices (whisper_id, device_id, platform, push_token, voip_token)
            SELECT whisper_id, $4::uuid, $5, $6, $7 FROM identity WHERE keys_match AND NOT banned
            ON CONFLICT (whisper_id, device_id) DO UPDATE SET
                platform = EXCLUDED.platform,
                push_token = COALESCE(EXCLUDED.push_token, devices.push_token),
                voip_token = COALESCE(EXCLUDED.voip_token, devices.voip_token),
                last_active_at = now()
            RETURNING 1),
        others AS (
            UPDATE devices SET push_token = NULL, voip_token = NULL
            FROM identity
            WHERE devices.whisper_id = identity.whisper_id AND devices.device_id <> $4::uuid
              AND identity.keys_match AND NOT identity.banned
              AND (devices.push_token IS NOT NULL OR devices.voip_token IS NOT NULL)
            RETURNING 1)
        SELECT keys_match, banned FROM identity
        """

    /// `update_tokens`: the session's device row; absent tokens keep the stored ones.
    package static let updateTokensSQL = """
        UPDATE devices SET platform = $3, push_token = COALESCE($4, push_token),
                           voip_token = COALESCE($5, voip_token), last_active_at = now()
        WHERE whisper_id = $1 AND device_id = $2::uuid
        """

    package func find(_ id: WhisperID, completion: @escaping StoreCompletion<StoredIdentity?>) {
        pool.query(Self.findSQL, [.text(id.string)], on: loop, completion) { rows in
            guard let row = rows.first else { return .success(nil) }
            guard let enc = row.bytes("enc_public_key"), let sign = row.bytes("sign_public_key"),
                  let banned = row.bool("banned")
            else { return .failure(.unexpectedReply("users row for \(id) is malformed")) }
            return .success(StoredIdentity(keys: IdentityKeys(encPublicKey: enc, signPublicKey: sign), isBanned: banned))
        }
    }

    package func findBySignKey(_ signPublicKey: [UInt8], completion: @escaping StoreCompletion<WhisperID?>) {
        pool.query(Self.findBySignKeySQL, [.bytea(signPublicKey)], on: loop, completion) { rows in
            guard let row = rows.first else { return .success(nil) }
            guard let id = row.string("whisper_id").flatMap(WhisperID.validate)
            else { return .failure(.unexpectedReply("users row found by its signing key is malformed")) }
            return .success(id)
        }
    }

    package func create(_ id: WhisperID, keys: IdentityKeys, device: DeviceLogin, completion: @escaping StoreCompletion<Bool>) {
        let parameters: [PostgresValue?] = [.text(id.string), .bytea(keys.encPublicKey), .bytea(keys.signPublicKey),
                                            .text(device.deviceId.string), .text(device.platform.rawValue),
                                            device.pushToken.map(PostgresValue.text), device.voipToken.map(PostgresValue.text)]
        pool.query(Self.createSQL, parameters, on: loop, completion) { .success($0.affectedRows == 1) }
    }

    package func updateTokens(_ device: DeviceLogin, completion: @escaping StoreCompletion<Bool>) {
        let parameters: [PostgresValue?] = [.text(device.whisperId.string), .text(device.deviceId.string),
                                            .text(device.platform.rawValue), device.pushToken.map(PostgresValue.text),
                                            device.voipToken.map(PostgresValue.text)]
        pool.query(Self.updateTokensSQL, parameters, on: loop, completion) { .success($0.affectedRows == 1) }
    }

    package func recover(_ id: WhisperID, keys: IdentityKeys, device: DeviceLogin, completion: @escaping StoreCompletion<RecoveryCheck>) {
        let parameters: [PostgresValue?] = [.text(id.string), .bytea(keys.encPublicKey), .bytea(keys.signPublicKey),
                                            .text(device.deviceId.string), .text(device.platform.rawValue),
                                            device.pushToken.map(PostgresValue.text), device.voipToken.map(PostgresValue.text)]
        pool.query(Self.recoverSQL, parameters, on: loop, completion) { rows in
            guard let row = rows.first else { return .success(.unknownIdentity) }
            guard let keysMatch = row.bool("keys_match"), let banned = row.bool("banned")
            else { return .failure(.unexpectedReply("recovery row for \(id) is malformed")) }
            if !keysMatch { return .success(.keyMismatch) }
            return .success(banned ? .banned : .recorded)
        }
    }

}
