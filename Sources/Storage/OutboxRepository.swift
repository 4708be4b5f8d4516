import GRDB
import TriggerEngine

/// The `outbox` and `sink_cursors` tables: fired notifications in order, and how far each sink has delivered them.
public struct OutboxRepository: Sendable {
    public init() {}

    /// Appends a fired notification. A `deliveryId` already present is ignored (returns false): the engine never
    /// repeats one, so this only guards against a bug turning into a duplicate delivery.
    @discardableResult
    public func append(_ n: FiredNotification, in db: Database) throws -> Bool {
        try db.execute(
            sql: "INSERT OR IGNORE INTO outbox (delivery_id, identifier, device, json, created_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [n.deliveryId, n.identifier, n.device, n.jsonLine, n.firedAt.microseconds])
        return db.changesCount > 0
    }

    /// Entries after `sequence`, oldest first.
    public func entries(after sequence: Int64, limit: Int, in db: Database) throws -> [OutboxEntry] {
        try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE sequence > ? ORDER BY sequence LIMIT ?",
                         arguments: [sequence, limit]).map { row in
            let created: Int64 = row["created_at"]
            return OutboxEntry(sequence: row["sequence"], deliveryId: row["delivery_id"], identifier: row["identifier"],
                               device: row["device"], json: row["json"], createdAt: Timestamp(microseconds: created))
        }
    }

    /// The last sequence the sink has acknowledged (0: none).
    public func cursor(sink: String, in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT sequence FROM sink_cursors WHERE sink = ?", arguments: [sink]) ?? 0
    }

    /// Acknowledges everything up to `sequence` for the sink. Never moves back.
    public func acknowledge(sink: String, through sequence: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO sink_cursors (sink, sequence) VALUES (?, ?)
                ON CONFLICT(sink) DO UPDATE SET sequence = max(sequence, excluded.sequence)
                """,
            arguments: [sink, sequence])
    }

    /// Entries not yet acknowledged by the sink.
    public func depth(sink: String, in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE sequence > ?", arguments: [try cursor(sink: sink, in: db)]) ?? 0
    }

    public func count(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0
    }
}
