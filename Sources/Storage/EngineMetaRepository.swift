import GRDB
import TriggerEngine

/// The `engine_meta` table: the engine's counters, written with every change so they never run back.
struct EngineMetaRepository: Sendable {
    init() {}

    func save(_ c: TriggerEngine.Counters, in db: Database) throws {
        // Cached: every batch runs it.
        let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO engine_meta (key, value) VALUES (?, ?)")
        for (key, value) in [("generation", String(c.generation)), ("revisionCounter", String(c.revisionCounter)),
                             ("now", String(c.now.microseconds))] {
            try statement.execute(arguments: [key, value])
        }
    }

    /// The stored counters, or nil on a new file.
    func load(in db: Database) throws -> TriggerEngine.Counters? {
        var values: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM engine_meta") { values[row["key"]] = row["value"] }
        guard let g = values["generation"].flatMap({ UInt64($0) }), let r = values["revisionCounter"].flatMap({ UInt64($0) }),
            let now = values["now"].flatMap({ Int64($0) })
        else { return nil }
        return .init(generation: g, revisionCounter: r, now: Timestamp(microseconds: now))
    }
}
