import EngineLog
import GRDB
import TriggerEngine

/// The `delivered` table: `repeats: false` requests that fired and left the pending set.
struct DeliveredRepository: Sendable {
    init() {}

    func save(_ e: DeliveredEntry, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO delivered (identifier, json, device, delivered_at) VALUES (?, ?, ?, ?)")
            .execute(arguments: [e.identifier, e.json, e.device, e.deliveredAt.microseconds])
    }

    /// Re-adding a request under a delivered identifier makes it pending again (the engine forgets the record too).
    func delete(identifier: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM delivered WHERE identifier = ?").execute(arguments: [identifier])
    }

    /// In delivery order.
    func all(in db: Database) throws -> [DeliveredEntry] {
        try Row.fetchAll(db, sql: "SELECT * FROM delivered ORDER BY delivered_at, rowid").map { row in
            let at: Int64 = row["delivered_at"]
            return DeliveredEntry(identifier: row["identifier"], json: row["json"], device: row["device"],
                         deliveredAt: Timestamp(microseconds: at))
        }
    }
}
