import Foundation
import GRDB
import Logging
import Synchronization

/// The service's durable state: one SQLite file in WAL mode (readers never block the writer), migrated to the
/// current schema when opened.
///
/// Every operation is one transaction (`write`, `read`, internal: no GRDB type leaves this module), so a crash at
/// any moment leaves either all of an operation or none.
public final class SQLiteStore: StateStore {
    let pool: DatabasePool
    let logger: Logger
    /// Why the file cannot be trusted right now (a write failed with corruption, I/O error or a full disk); nil
    /// while healthy. `/readyz` answers 503 with it.
    private let unhealthy = Mutex<String?>(nil)

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
        do {
            self.pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: "\(error)")
        }
        self.logger = logger
        self.path = path
        // A damaged page is found now, not when the first acknowledgement fails to commit: refuse to start.
        let problems: [String]
        do {
            problems = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(20)") }
        } catch {
            throw StoreError.damaged(path: path, problems: ["\(error)"])
        }
        guard problems == ["ok"] else { throw StoreError.damaged(path: path, problems: problems) }
        try Schema.migrator.migrate(pool)
        logger.debug("opened store", metadata: ["path": "\(path)"])
    }

    /// Nil while healthy; else why the file cannot be trusted (the last write's failure).
    public var unhealthyReason: String? { unhealthy.withLock { $0 } }

    /// Runs `body` in one write transaction: it commits when `body` returns and rolls back when it throws. A failure
    /// of the file itself (corruption, I/O, full disk) marks the store unhealthy until a write succeeds again.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return noteHealthy(try pool.write(body))
        } catch let error as DatabaseError where Self.isStorageFailure(error.resultCode) {
            throw noteUnhealthy(error)
        }
    }

    /// `write(_:)` without holding the caller's thread: GRDB runs the transaction on its writer queue and resumes
    /// the caller once it committed. For callers on Swift's cooperative pool (two threads on two cores): a commit
    /// waits for its fsync, and a pool thread held for it is one fewer for request handling meanwhile.
    func asyncWrite<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return noteHealthy(try await pool.write(body))
        } catch let error as DatabaseError where Self.isStorageFailure(error.resultCode) {
            throw noteUnhealthy(error)
        }
    }

    /// A write succeeded: the file is healthy again.
    private func noteHealthy<T>(_ result: T) -> T {
        if unhealthy.withLock({ $0 != nil }) { unhealthy.withLock { $0 = nil } }
        return result
    }

    /// A write failed for the file itself: unhealthy until a write succeeds, logged once. Returns the error.
    private func noteUnhealthy(_ error: DatabaseError) -> DatabaseError {
        let reason = "the database file \(path) failed: \(error.message ?? "\(error.resultCode)")"
        let first = unhealthy.withLock { old in
            defer { old = reason }
            return old == nil
        }
        if first { logger.critical("storage unhealthy", metadata: ["path": "\(path)", "error": "\(error)"]) }
        return error
    }

    static func isStorageFailure(_ code: ResultCode) -> Bool {
        [.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_IOERR, .SQLITE_FULL, .SQLITE_CANTOPEN, .SQLITE_READONLY].contains(code.primaryResultCode)
    }

    /// Runs `body` on a read-only snapshot, concurrently with writes.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
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
