import EngineLog
import GRDB
import TriggerEngine

/// The `requests` table: pending notification requests.
struct RequestRepository: Sendable {
    init() {}

    /// Inserts or replaces a request. A replaced request's pair states belong to its old revision: they go too.
    /// Cached statements: a batch of many requests (a large POST, a restart's listing) is one transaction, and
    /// preparing both statements per row was most of its time on the engine's thread.
    func save(_ r: StoredRequest, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO requests (identifier, json, revision, firings, added_generation, added_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(identifier) DO UPDATE SET json = excluded.json, revision = excluded.revision,
                  firings = excluded.firings, added_generation = excluded.added_generation, added_at = excluded.added_at
                """)
            .execute(arguments: [r.identifier, r.json, Int64(bitPattern: r.state.revision), Int64(bitPattern: r.state.firings),
                                 Int64(bitPattern: r.state.addedGeneration), r.state.addedAt.microseconds])
        try db.cachedStatement(sql: "DELETE FROM pair_states WHERE identifier = ? AND revision <> ?")
            .execute(arguments: [r.identifier, Int64(bitPattern: r.state.revision)])
    }

    /// Records a request's firing count after a batch that fired it.
    func updateFirings(identifier: String, firings: UInt64, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE requests SET firings = ? WHERE identifier = ?")
            .execute(arguments: [Int64(bitPattern: firings), identifier])
    }

    /// Deletes requests and their pair states; returns the identifiers that existed.
    @discardableResult
    func delete(identifiers: [String], in db: Database) throws -> [String] {
        var removed: [String] = []
        for id in identifiers {
            try db.cachedStatement(sql: "DELETE FROM requests WHERE identifier = ?").execute(arguments: [id])
            if db.changesCount > 0 { removed.append(id) }
            try db.cachedStatement(sql: "DELETE FROM pair_states WHERE identifier = ?").execute(arguments: [id])
        }
        return removed
    }

    func deleteAll(in db: Database) throws {
        try db.execute(sql: "DELETE FROM requests")
        try db.execute(sql: "DELETE FROM pair_states")
    }

    func find(_ identifier: String, in db: Database) throws -> StoredRequest? {
        try Row.fetchOne(db, sql: "SELECT * FROM requests WHERE identifier = ?", arguments: [identifier]).map(Self.decode)
    }

    /// Requests ordered by identifier, after `cursor` (exclusive) when given, skipping `offset`; only those whose
    /// region has the id `region`, and only those that apply to `device` (no `devices` list, `"*"`, or a list
    /// naming it or `"*"`), when given. Read from the stored JSON (SQLite's JSON functions).
    func page(after cursor: String?, offset: Int, limit: Int, region: String? = nil, device: String? = nil,
                     in db: Database) throws -> [StoredRequest] {
        var sql = "SELECT r.* FROM requests r WHERE identifier > ?"
        var arguments: StatementArguments = [cursor ?? ""]
        if let region {
            sql += " AND json_extract(r.json, '$.trigger.region.id') = ?"
            arguments += [region]
        }
        if let device {
            sql += """
                 AND (json_type(r.json, '$.trigger.devices') IS NULL OR json_type(r.json, '$.trigger.devices') = 'null'
                   OR json_extract(r.json, '$.trigger.devices') = '*'
                   OR EXISTS (SELECT 1 FROM json_each(r.json, '$.trigger.devices') d WHERE d.value IN (?, '*')))
                """
            arguments += [device]
        }
        sql += " ORDER BY identifier LIMIT ? OFFSET ?"
        arguments += [limit, offset]
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.decode)
    }

    func all(in db: Database) throws -> [StoredRequest] {
        try Row.fetchAll(db, sql: "SELECT * FROM requests ORDER BY identifier").map(Self.decode)
    }

    func count(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM requests") ?? 0
    }

    static func decode(_ row: Row) -> StoredRequest {
        let revision: Int64 = row["revision"], firings: Int64 = row["firings"], generation: Int64 = row["added_generation"]
        let addedAt: Int64 = row["added_at"]
        return StoredRequest(
            identifier: row["identifier"], json: row["json"],
            state: .init(revision: UInt64(bitPattern: revision), firings: UInt64(bitPattern: firings),
                         addedGeneration: UInt64(bitPattern: generation), addedAt: Timestamp(microseconds: addedAt)))
    }
}
