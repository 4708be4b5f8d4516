import Foundation
import GRDB
import Logging

/// The service's durable state: one SQLite file in WAL mode (readers never block the writer), migrated to the
/// current schema when opened.
///
/// Writes go through `write`, one transaction each: the service writes a whole ingest batch (changed device state,
/// request firings, fired notifications) in one, so a crash at any moment leaves either all of it or none.
public final class Store: Sendable {
    let pool: DatabasePool
    let logger: Logger

    public let path: String

    public init(path: String, logger: Logger) throws {
        var configuration = Configuration()
        configuration.label = "geotrigger"
        // Waiting briefly beats failing when a second process (a backup, sqlite3) holds a lock.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // FULL: a committed batch survives power loss too, not only a killed process.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        self.pool = try DatabasePool(path: path, configuration: configuration)
        self.logger = logger
        self.path = path
        try Schema.migrator.migrate(pool)
        logger.debug("opened store", metadata: ["path": "\(path)"])
    }

    /// Runs `body` in one write transaction: it commits when `body` returns and rolls back when it throws.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.write(body)
    }

    /// Runs `body` on a read-only snapshot, concurrently with writes.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.read(body)
    }

    /// Checkpoints the WAL into the main file and closes every connection; the store is unusable afterwards.
    public func close() throws {
        _ = try? pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try pool.close()
    }

    /// The schema versions applied to this file, oldest first.
    public func appliedMigrations() throws -> [String] {
        try pool.read { db in try Schema.migrator.appliedMigrations(db) }
    }
}
