import GRDB
import TriggerEngine

/// The `devices` and `pair_states` tables of the version before the journal: a service upgraded in place restores
/// from them once (`Store.restore`), then its checkpoints hold the state. `save` writes such a file (the upgrade
/// tests).
struct DeviceStateRepository: Sendable {
    init() {}

    /// Replaces the device's row and all its pair rows, keeping the pairs' order.
    func save(_ s: DeviceSnapshot, in db: Database) throws {
        try db.execute(sql: "DELETE FROM pair_states WHERE device = ?", arguments: [s.device])
        try db.execute(
            sql: """
                INSERT INTO devices (device, last_fix, last_sighting, state) VALUES (?, ?, ?, ?)
                ON CONFLICT(device) DO UPDATE SET last_fix = excluded.last_fix, last_sighting = excluded.last_sighting,
                  state = excluded.state
                """,
            arguments: [s.device, s.lastFix?.microseconds, s.lastSighting?.microseconds, s.state])
        for (k, p) in s.pairs.enumerated() {
            try db.execute(sql: "INSERT INTO pair_states (device, identifier, revision, state, position) VALUES (?, ?, ?, ?, ?)",
                           arguments: [s.device, p.identifier, Int64(bitPattern: p.revision), p.state, k])
        }
    }

    /// Forgets a device (the engine expired it).
    func delete(device: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM pair_states WHERE device = ?").execute(arguments: [device])
        try db.cachedStatement(sql: "DELETE FROM devices WHERE device = ?").execute(arguments: [device])
    }

    func find(_ device: String, in db: Database) throws -> DeviceSnapshot? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE device = ?", arguments: [device]) else {
            return nil
        }
        return try snapshot(row, in: db)
    }

    func all(in db: Database) throws -> [DeviceSnapshot] {
        try Row.fetchAll(db, sql: "SELECT * FROM devices ORDER BY device").map { try snapshot($0, in: db) }
    }

    func count(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM devices") ?? 0
    }

    private func snapshot(_ row: Row, in db: Database) throws -> DeviceSnapshot {
        let device: String = row["device"]
        let lastFix: Int64? = row["last_fix"], lastSighting: Int64? = row["last_sighting"]
        let pairs = try Row.fetchAll(
            db, sql: "SELECT identifier, revision, state FROM pair_states WHERE device = ? ORDER BY position",
            arguments: [device]
        ).map { r -> DeviceSnapshot.Pair in
            let revision: Int64 = r["revision"]
            return .init(identifier: r["identifier"], revision: UInt64(bitPattern: revision), state: r["state"])
        }
        return DeviceSnapshot(device: device, lastFix: lastFix.map { Timestamp(microseconds: $0) },
                              lastSighting: lastSighting.map { Timestamp(microseconds: $0) }, state: row["state"], pairs: pairs)
    }
}
