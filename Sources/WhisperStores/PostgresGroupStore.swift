import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// `groups` and `group_members` through the PostgreSQL worker pool; completions come back on
/// `loop`. Members are read longest-standing first: `joined_at`, then Whisper ID (members
/// who joined in one operation share its transaction time).
package final class PostgresGroupStore: GroupStore {
    private let pool: PostgresPool?
    private let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    /// One statement: the group and its members go in only when every member id is a
    /// registered identity (else nothing, 0 rows). The members' foreign key to the group is
    /// checked at the end of the statement, when the group row exists.
    package static let createSQL = """
        WITH known AS (SELECT count(*) AS n FROM users WHERE whisper_id = ANY($4::text[])),
             created AS (
                INSERT INTO groups (group_id, title, owner_id)
                SELECT $1::text, $2::text, $3::text FROM known WHERE n = $5::bigint
                RETURNING group_id)
        INSERT INTO group_members (group_id, whisper_id, role)
        SELECT created.group_id, m, CASE WHEN m = $3::text THEN 'owner' ELSE 'member' END
        FROM created, unnest($4::text[]) AS m
        """

    package static let findSQL = """
        SELECT g.title, g.owner_id, g.version, m.whisper_id
        FROM groups g JOIN group_members m ON m.group_id = g.group_id
        WHERE g.group_id = $1
        ORDER BY m.joined_at, m.whisper_id
        """

    /// The same, holding the group's row lock until the transaction ends: updates of one
    /// group are serialised, each deciding on the state the previous one left.
    package static let lockSQL = findSQL + "\nFOR UPDATE OF g"

    /// A member's groups by id, one page (keyset: after the previous page's last id).
    package static let groupsSQL = """
        SELECT g.group_id, g.title, g.owner_id, g.version
        FROM group_members m JOIN groups g ON g.group_id = m.group_id
        WHERE m.whisper_id = $1 AND g.group_id > $2
        ORDER BY g.group_id
        LIMIT $3::bigint
        """

    package func create(_ group: GroupRecord, completion: @escaping StoreCompletion<GroupCreateOutcome>) {
        let parameters: [PostgresValue?] = [.text(group.groupId.string), .text(group.title), .text(group.ownerId.string),
                                            Self.idArray(group.members), .int64(Int64(group.members.count))]
        pool.query(Self.createSQL, parameters, on: loop, completion) { rows in
            .success(rows.affectedRows == group.members.count ? .created : .unknownMembers)
        }
    }

    package func find(_ groupId: GroupID, completion: @escaping StoreCompletion<GroupRecord?>) {
        pool.query(Self.findSQL, [.text(groupId.string)], on: loop, completion) { rows in
            Self.record(groupId, rows)
        }
    }

    package func groups(of member: WhisperID, after: GroupID?, limit: Int,
                        completion: @escaping StoreCompletion<[GroupFrames.Summary]>) {
        // Every group id starts with `grp-`, so "" sorts before all of them.
        let parameters: [PostgresValue?] = [.text(member.string), .text(after?.string ?? ""), .int64(Int64(limit))]
        pool.query(Self.groupsSQL, parameters, on: loop, completion) { rows in
            var groups: [GroupFrames.Summary] = []
            groups.reserveCapacity(rows.count)
            for row in rows {
                guard let groupId = row.string("group_id").flatMap(GroupID.init), let title = row.string("title"),
                      let owner = row.string("owner_id").flatMap(WhisperID.validate), let version = row.int64("version")
                else { return .failure(.unexpectedReply("malformed group row")) }
                groups.append(GroupFrames.Summary(groupId: groupId, title: title, ownerId: owner, version: version))
            }
            return .success(groups)
        }
    }

    package func update(_ groupId: GroupID, decide: @escaping @Sendable (GroupRecord) -> Result<GroupChange, GroupRefusal>,
                        completion: @escaping StoreCompletion<GroupUpdateOutcome>) {
        guard let pool else {
            return loop.deferToEndOfIteration { completion(.failure(.unavailable("no database configured"))) }
        }
        pool.transaction(on: loop, { connection throws(PostgresError) -> Result<GroupUpdateOutcome, StoreError> in
            let rows = try connection.query(Self.lockSQL, [.text(groupId.string)])
            switch Self.record(groupId, rows) {
            case .failure(let error): return .failure(error)
            case .success(nil): return .success(.unknownGroup)
            case .success(let group?):
                switch decide(group) {
                case .failure(let refusal): return .success(.refused(refusal))
                case .success(let change): return .success(try Self.write(change, connection))
                }
            }
        }) { result in
            switch result {
            case .success(let outcome): completion(outcome)
            case .failure(let error): completion(.failure(.unavailable(error.description)))
            }
        }
    }

    /// Writes `change` inside the update's transaction; an added id that is not registered
    /// writes nothing.
    private static func write(_ change: GroupChange, _ connection: PostgresConnection) throws(PostgresError) -> GroupUpdateOutcome {
        let group: PostgresValue = .text(change.after.groupId.string)
        if !change.added.isEmpty {
            let known = try connection.query("SELECT count(*) AS n FROM users WHERE whisper_id = ANY($1::text[])",
                                             [idArray(change.added)])
            guard known.first?.int64("n") == Int64(change.added.count) else { return .unknownMembers }
        }
        if change.deleted {
            _ = try connection.query("DELETE FROM groups WHERE group_id = $1", [group])
            return .applied(change)
        }
        _ = try connection.query("UPDATE groups SET title = $2, owner_id = $3, version = $4, updated_at = now() WHERE group_id = $1",
                                 [group, .text(change.after.title), .text(change.after.ownerId.string),
                                  .int64(change.after.version)])
        if !change.removed.isEmpty {
            _ = try connection.query("DELETE FROM group_members WHERE group_id = $1 AND whisper_id = ANY($2::text[])",
                                     [group, idArray(change.removed)])
        }
        if !change.added.isEmpty {
            _ = try connection.query("INSERT INTO group_members (group_id, whisper_id) SELECT $1, unnest($2::text[])",
                                     [group, idArray(change.added)])
        }
        if change.after.ownerId != change.before.ownerId {
            _ = try connection.query("""
                UPDATE group_members SET role = CASE WHEN whisper_id = $2 THEN 'owner' ELSE 'member' END
                WHERE group_id = $1 AND whisper_id IN ($2, $3)
                """, [group, .text(change.after.ownerId.string), .text(change.before.ownerId.string)])
        }
        return .applied(change)
    }

    /// Rows of `findSQL` → the group; no rows → no such group (a group always has a member).
    private static func record(_ groupId: GroupID, _ rows: PostgresRows) -> Result<GroupRecord?, StoreError> {
        guard let first = rows.first else { return .success(nil) }
        guard let title = first.string("title"), let owner = first.string("owner_id").flatMap(WhisperID.validate),
              let version = first.int64("version")
        else { return .failure(.unexpectedReply("group row without title, owner or version")) }
        var members: [WhisperID] = []
        members.reserveCapacity(rows.count)
        for row in rows {
            guard let member = row.string("whisper_id").flatMap(WhisperID.validate) else {
                return .failure(.unexpectedReply("group member row without a valid id"))
            }
            members.append(member)
        }
        return .success(GroupRecord(groupId: groupId, title: title, ownerId: owner, members: members, version: version))
    }

    /// A `text[]` literal. Whisper IDs are `WSP-` and Base32 (A–Z, 2–7): nothing in them
    /// needs quoting inside `{…}`.
    private static func idArray(_ ids: [WhisperID]) -> PostgresValue {
        .text("{" + ids.map(\.string).joined(separator: ",") + "}")
    }
}
