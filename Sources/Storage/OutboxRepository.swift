import GRDB
import TriggerEngine

/// The `outbox`, `sink_cursors` and `sink_acks` tables: fired notifications in order, and how far each sink has
/// settled them (acknowledged, or moved to the dead letters).
///
/// A sink's cursor is the end of its contiguous settled prefix; sequences settled beyond it (devices are delivered
/// concurrently) are rows of `sink_acks` until the cursor catches up with them.
public struct OutboxRepository: Sendable {
    public init() {}

    /// Appends a fired notification. A `deliveryId` already present is ignored (returns false): the engine never
    /// repeats one, so this only guards against a bug turning into a duplicate delivery.
    @discardableResult
    public func append(_ n: FiredNotification, in db: Database) throws -> Bool {
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO outbox (delivery_id, identifier, device, json, created_at, enqueued_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [n.deliveryId, n.identifier, n.device, n.jsonLine, n.firedAt.microseconds,
                              Timestamp.wallClock().microseconds])
        return db.changesCount > 0
    }

    /// Entries after `sequence`, oldest first.
    public func entries(after sequence: Int64, limit: Int, in db: Database) throws -> [OutboxEntry] {
        try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE sequence > ? ORDER BY sequence LIMIT ?",
                         arguments: [sequence, limit]).map(Self.entry)
    }

    /// Entries after `sequence` the sink has not settled yet, oldest first.
    public func unsettled(sink: String, after sequence: Int64, limit: Int, in db: Database) throws -> [OutboxEntry] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM outbox o WHERE sequence > ?
                AND NOT EXISTS (SELECT 1 FROM sink_acks a WHERE a.sink = ? AND a.sequence = o.sequence)
                ORDER BY sequence LIMIT ?
                """,
            arguments: [sequence, sink, limit]).map(Self.entry)
    }

    static func entry(_ row: Row) -> OutboxEntry {
        let created: Int64 = row["created_at"]
        let enqueued: Int64? = row["enqueued_at"]
        return OutboxEntry(sequence: row["sequence"], deliveryId: row["delivery_id"], identifier: row["identifier"],
                           device: row["device"], json: row["json"], createdAt: Timestamp(microseconds: created),
                           enqueuedAt: enqueued.map(Timestamp.init(microseconds:)))
    }

    /// The last sequence up to which the sink has settled everything (0: none).
    public func cursor(sink: String, in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT sequence FROM sink_cursors WHERE sink = ?", arguments: [sink]) ?? 0
    }

    /// Settles everything up to `sequence` for the sink. Never moves back.
    public func acknowledge(sink: String, through sequence: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO sink_cursors (sink, sequence) VALUES (?, ?)
                ON CONFLICT(sink) DO UPDATE SET sequence = max(sequence, excluded.sequence)
                """,
            arguments: [sink, sequence])
        try db.execute(sql: "DELETE FROM sink_acks WHERE sink = ? AND sequence <= ?", arguments: [sink, sequence])
    }

    /// Settles the given sequences for the sink (in any order), then moves its cursor over the contiguous settled
    /// prefix. Returns the new cursor.
    @discardableResult
    public func settle(sink: String, sequences: [Int64], in db: Database) throws -> Int64 {
        let cursor = try cursor(sink: sink, in: db)
        for s in sequences where s > cursor {
            try db.execute(sql: "INSERT OR IGNORE INTO sink_acks (sink, sequence) VALUES (?, ?)", arguments: [sink, s])
        }
        // The first entry the sink has not settled; the cursor stops just before it.
        let firstOpen = try Int64.fetchOne(
            db,
            sql: """
                SELECT sequence FROM outbox o WHERE sequence > ?
                AND NOT EXISTS (SELECT 1 FROM sink_acks a WHERE a.sink = ? AND a.sequence = o.sequence)
                ORDER BY sequence LIMIT 1
                """,
            arguments: [cursor, sink])
        let settled: Int64?
        if let firstOpen {
            settled = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM sink_acks WHERE sink = ? AND sequence < ?",
                                         arguments: [sink, firstOpen])
        } else {
            settled = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM sink_acks WHERE sink = ?", arguments: [sink])
        }
        guard let settled, settled > cursor else { return cursor }
        try acknowledge(sink: sink, through: settled, in: db)
        return settled
    }

    /// Settles the given sequences for the sink when the caller knows the end of the contiguous settled prefix
    /// (the dispatcher does: everything it read and no longer holds is settled): moves the cursor there and keeps
    /// acknowledgement rows only beyond it. Constant work per call, however far the cursor lags.
    public func settle(sink: String, sequences: [Int64], cursor: Int64, in db: Database) throws {
        for s in sequences where s > cursor {
            try db.execute(sql: "INSERT OR IGNORE INTO sink_acks (sink, sequence) VALUES (?, ?)", arguments: [sink, s])
        }
        try acknowledge(sink: sink, through: cursor, in: db)
    }

    /// Deletes the entries every one of `sinks` has settled (none when `sinks` is empty: nothing delivers them).
    /// Returns how many went.
    @discardableResult
    public func deleteSettled(sinks: [String], in db: Database) throws -> Int {
        guard !sinks.isEmpty else { return 0 }
        let low = try sinks.map { try cursor(sink: $0, in: db) }.min() ?? 0
        guard low > 0 else { return 0 }
        try db.execute(sql: "DELETE FROM outbox WHERE sequence <= ?", arguments: [low])
        return db.changesCount
    }

    /// Entries not yet settled by the sink, in constant time: every entry after a cursor is still in the table
    /// (entries leave only once every cursor passed them), so they run from the cursor to the last sequence.
    public func depth(sink: String, in db: Database) throws -> Int {
        let cursor = try cursor(sink: sink, in: db)
        guard let high = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM outbox"), high > cursor else { return 0 }
        let low = try Int64.fetchOne(db, sql: "SELECT MIN(sequence) FROM outbox") ?? cursor + 1
        let acked = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sink_acks WHERE sink = ? AND sequence > ?",
                                     arguments: [sink, cursor]) ?? 0
        return max(0, Int(high - max(cursor, low - 1)) - acked)
    }

    /// The oldest entry the sink has not settled.
    public func oldestUnsettled(sink: String, in db: Database) throws -> OutboxEntry? {
        try unsettled(sink: sink, after: try cursor(sink: sink, in: db), limit: 1, in: db).first
    }

    public func count(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0
    }

    /// How many entries the outbox holds and when its oldest was enqueued, in constant time: entries only ever
    /// leave from the low end, so the sequences in the table are contiguous.
    public func extent(in db: Database) throws -> (entries: Int, oldest: Timestamp?) {
        guard let row = try Row.fetchOne(db, sql: "SELECT MIN(sequence) AS low, MAX(sequence) AS high FROM outbox"),
            let low: Int64 = row["low"], let high: Int64 = row["high"]
        else { return (0, nil) }
        let enqueued = try Row.fetchOne(db, sql: "SELECT enqueued_at, created_at FROM outbox WHERE sequence = ?", arguments: [low])
        let at: Int64? = enqueued?["enqueued_at"]
        return (Int(high - low + 1), at.map(Timestamp.init(microseconds:)))
    }
}
