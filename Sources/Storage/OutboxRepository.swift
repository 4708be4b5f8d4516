import GRDB
import TriggerEngine

/// The `sink_cursors` table: per sink, the sequence up to which it has settled every notification (acknowledged,
/// or moved to the dead letters). The notifications themselves are read from the journal (`JournalOutbox`).
///
/// Also the `outbox` table of the versions that copied every notification into SQLite: its rows are read once at
/// start and delivered before the journal's, then the table is emptied.
struct OutboxRepository: Sendable {
    init() {}

    /// Every stored cursor, by sink name.
    func cursors(in db: Database) throws -> [String: Int64] {
        var out: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT sink, sequence FROM sink_cursors") {
            out[row["sink"]] = row["sequence"]
        }
        return out
    }

    /// The last sequence up to which the sink has settled everything (0: none stored).
    func cursor(sink: String, in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT sequence FROM sink_cursors WHERE sink = ?", arguments: [sink]) ?? 0
    }

    /// Settles everything up to `sequence` for the sink. Never moves back.
    func acknowledge(sink: String, through sequence: Int64, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO sink_cursors (sink, sequence) VALUES (?, ?)
            ON CONFLICT(sink) DO UPDATE SET sequence = max(sequence, excluded.sequence)
            """).execute(arguments: [sink, sequence])
    }

    // MARK: The legacy outbox table

    /// Appends a fired notification to the legacy table (how versions before the journal stored it; kept for the
    /// upgrade tests and for damaging a file in tests). A `deliveryId` already present is ignored.
    @discardableResult
    func append(_ n: FiredNotification, in db: Database) throws -> Bool {
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO outbox (delivery_id, identifier, device, json, created_at, enqueued_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [n.deliveryId, n.identifier, n.device, n.jsonLine, n.firedAt.microseconds,
                              Timestamp.wallClock().microseconds])
        return db.changesCount > 0
    }

    /// Rows of the legacy table after `sequence`, oldest first.
    func entries(after sequence: Int64, limit: Int, in db: Database) throws -> [StoredNotification] {
        try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE sequence > ? ORDER BY sequence LIMIT ?",
                         arguments: [sequence, limit]).map(Self.entry)
    }

    static func entry(_ row: Row) -> StoredNotification {
        let created: Int64 = row["created_at"]
        let enqueued: Int64? = row["enqueued_at"]
        return StoredNotification(sequence: row["sequence"], deliveryId: row["delivery_id"], identifier: row["identifier"],
                           device: row["device"], json: row["json"], createdAt: Timestamp(microseconds: created),
                           enqueuedAt: enqueued.map(Timestamp.init(microseconds:)))
    }

    func count(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0
    }

    /// Empties the legacy table once every sink has settled its rows.
    func deleteLegacy(in db: Database) throws {
        try db.execute(sql: "DELETE FROM outbox")
        try db.execute(sql: "DELETE FROM sink_acks")
    }
}
