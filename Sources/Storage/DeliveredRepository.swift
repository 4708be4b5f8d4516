import GRDB
import TriggerEngine

/// The `delivered` table: `repeats: false` requests that fired and left the pending set.
public struct DeliveredRepository: Sendable {
    public struct Entry: Sendable, Hashable {
        public var identifier: String
        public var json: String
        public var device: String
        public var deliveredAt: Timestamp

        public init(identifier: String, json: String, device: String, deliveredAt: Timestamp) {
            self.identifier = identifier
            self.json = json
            self.device = device
            self.deliveredAt = deliveredAt
        }
    }

    public init() {}

    public func save(_ e: Entry, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO delivered (identifier, json, device, delivered_at) VALUES (?, ?, ?, ?)",
                       arguments: [e.identifier, e.json, e.device, e.deliveredAt.microseconds])
    }

    /// Re-adding a request under a delivered identifier makes it pending again (the engine forgets the record too).
    public func delete(identifier: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM delivered WHERE identifier = ?", arguments: [identifier])
    }

    /// In delivery order.
    public func all(in db: Database) throws -> [Entry] {
        try Row.fetchAll(db, sql: "SELECT * FROM delivered ORDER BY delivered_at, rowid").map { row in
            let at: Int64 = row["delivered_at"]
            return Entry(identifier: row["identifier"], json: row["json"], device: row["device"],
                         deliveredAt: Timestamp(microseconds: at))
        }
    }
}
