import Foundation
import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The attachment GC's queries (`AttachmentCollector`).
extension PostgresAttachmentStore: AttachmentGCStore {
    /// Random order, so rows still pending (for up to the 72 h pending TTL) cannot keep a
    /// batch full while others wait.
    static let undeliveredSQL = """
        SELECT r.object_key, a.uploader_id, r.recipient_id, r.message_id
        FROM attachment_recipients r JOIN attachments a USING (object_key)
        WHERE r.delivered_at IS NULL AND a.deleted_at IS NULL
        ORDER BY random() LIMIT $1::bigint
        """

    static let markDeliveredSQL = """
        UPDATE attachment_recipients r SET delivered_at = now()
        FROM unnest($1::text[], $2::text[], $3::text[]) AS u(object_key, recipient_id, message_id)
        WHERE r.object_key = u.object_key AND r.recipient_id = u.recipient_id AND r.message_id = u.message_id
          AND r.delivered_at IS NULL
        """

    static let collectableSQL = """
        SELECT a.object_key FROM attachments a
        WHERE a.deleted_at IS NULL AND (
            a.expires_at < now()
            OR (NOT EXISTS (SELECT 1 FROM attachment_recipients r WHERE r.object_key = a.object_key)
                AND a.created_at <= now() - $1::bigint * interval '1 second')
            OR (EXISTS (SELECT 1 FROM attachment_recipients r WHERE r.object_key = a.object_key)
                AND NOT EXISTS (SELECT 1 FROM attachment_recipients r
                                WHERE r.object_key = a.object_key AND r.delivered_at IS NULL)))
        ORDER BY a.created_at LIMIT $2::bigint
        """

    static let forgetSQL = "DELETE FROM attachments WHERE object_key = $1"

    func undeliveredRecipients(limit: Int, completion: @escaping StoreCompletion<[UndeliveredRecipient]>) {
        pool.query(Self.undeliveredSQL, [.text(String(limit))], on: loop, completion) { rows in
            var result: [UndeliveredRecipient] = []
            for row in rows {
                guard let key = row.string("object_key"), let uploader = row.string("uploader_id").flatMap(WhisperID.validate),
                      let recipient = row.string("recipient_id").flatMap(WhisperID.validate),
                      let messageId = row.string("message_id").flatMap(CanonicalUUID.init)
                else { return .failure(.unexpectedReply("attachment_recipients row is malformed")) }
                result.append(UndeliveredRecipient(objectKey: key, uploader: uploader, recipient: recipient, messageId: messageId))
            }
            return .success(result)
        }
    }

    func markDelivered(_ rows: [UndeliveredRecipient], completion: @escaping StoreCompletion<Void>) {
        let parameters: [PostgresValue?] = [.text(Self.textArray(rows.map(\.objectKey))),
                                            .text(Self.textArray(rows.map(\.recipient.string))),
                                            .text(Self.textArray(rows.map(\.messageId.string)))]
        pool.query(Self.markDeliveredSQL, parameters, on: loop, completion) { _ in .success(()) }
    }

    func collectable(graceSeconds: Int64, limit: Int, completion: @escaping StoreCompletion<[String]>) {
        pool.query(Self.collectableSQL, [.text(String(graceSeconds)), .text(String(limit))], on: loop, completion) { rows in
            .success(rows.compactMap { $0.string("object_key") })
        }
    }

    func forget(_ objectKey: String, completion: @escaping StoreCompletion<Bool>) {
        pool.query(Self.forgetSQL, [.text(objectKey)], on: loop, completion) { .success($0.affectedRows > 0) }
    }

    func audit(_ entry: AuditEntry, completion: @escaping StoreCompletion<Void>) {
        pool.query(PostgresAdminStore.auditSQL, PostgresAdminStore.parameters(entry), on: loop, completion) { _ in .success(()) }
    }

    /// A PostgreSQL `text[]` literal with every element quoted (`{"a","b\"c"}`), so no element
    /// can break out of the array whatever it holds.
    static func textArray(_ items: [String]) -> String {
        let quoted = items.map { item in
            "\"" + item.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }
}
