import GRDB
import TriggerEngine

/// The `dead_letters` table: entries a sink refused for good (a 4xx other than 408 and 429, say), with its answer.
/// A dead letter counts as settled for its sink; a replay request makes the sink try it once more.
struct DeadLetterRepository: Sendable {
    init() {}

    /// Stores the entry as refused by the sink and settles it for that sink, in the caller's transaction.
    @discardableResult
    func add(sink: String, entry: StoredNotification, status: Int?, response: String, attempts: Int, at time: Timestamp,
                    in db: Database) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO dead_letters (sink, sequence, delivery_id, device, json, status, response, enqueued_at,
                                          failed_at, attempts)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [sink, entry.sequence, entry.deliveryId, entry.device, entry.json, status, response,
                        (entry.enqueuedAt ?? entry.createdAt).microseconds, time.microseconds, attempts])
        return db.lastInsertedRowID
    }

    func find(id: Int64, in db: Database) throws -> DeadLetter? {
        try Row.fetchOne(db, sql: "SELECT * FROM dead_letters WHERE id = ?", arguments: [id]).map(Self.letter)
    }

    /// Newest first.
    func all(sink: String? = nil, limit: Int, in db: Database) throws -> [DeadLetter] {
        if let sink {
            return try Row.fetchAll(db, sql: "SELECT * FROM dead_letters WHERE sink = ? ORDER BY id DESC LIMIT ?",
                                    arguments: [sink, limit]).map(Self.letter)
        }
        return try Row.fetchAll(db, sql: "SELECT * FROM dead_letters ORDER BY id DESC LIMIT ?", arguments: [limit]).map(Self.letter)
    }

    func count(sink: String, in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dead_letters WHERE sink = ?", arguments: [sink]) ?? 0
    }

    /// Marks the letter for another delivery attempt; false if there is no such letter.
    func requestReplay(id: Int64, at time: Timestamp, in db: Database) throws -> Bool {
        try db.execute(sql: "UPDATE dead_letters SET replay_requested_at = ? WHERE id = ?", arguments: [time.microseconds, id])
        return db.changesCount > 0
    }

    /// The sink's letters waiting for a replay, oldest request first.
    func replayRequested(sink: String, limit: Int, in db: Database) throws -> [DeadLetter] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM dead_letters WHERE sink = ? AND replay_requested_at IS NOT NULL
                ORDER BY replay_requested_at, id LIMIT ?
                """,
            arguments: [sink, limit]).map(Self.letter)
    }

    /// A replay the sink acknowledged: the letter is delivered and goes.
    func delete(id: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM dead_letters WHERE id = ?", arguments: [id])
    }

    /// A replay the sink refused again: its new answer, and no further replay until asked.
    func refusedAgain(id: Int64, status: Int?, response: String, at time: Timestamp, in db: Database) throws {
        try db.execute(
            sql: """
                UPDATE dead_letters SET status = ?, response = ?, failed_at = ?, attempts = attempts + 1,
                replay_requested_at = NULL WHERE id = ?
                """,
            arguments: [status, response, time.microseconds, id])
    }

    static func letter(_ row: Row) -> DeadLetter {
        let enqueued: Int64 = row["enqueued_at"], failed: Int64 = row["failed_at"]
        let replay: Int64? = row["replay_requested_at"]
        let entry = StoredNotification(sequence: row["sequence"], deliveryId: row["delivery_id"], identifier: "",
                                device: row["device"], json: row["json"], createdAt: Timestamp(microseconds: enqueued),
                                enqueuedAt: Timestamp(microseconds: enqueued))
        return DeadLetter(id: row["id"], sink: row["sink"], entry: entry, status: row["status"], response: row["response"],
                      failedAt: Timestamp(microseconds: failed), attempts: row["attempts"],
                      replayRequestedAt: replay.map(Timestamp.init(microseconds:)))
    }
}
