import EngineLog
import GRDB
import TriggerEngine

/// What a journal-backed host keeps in the SQLite file: not engine state (that is the journal and its
/// checkpoints) but what readers and the delivery need: the sinks' cursors and dead letters, and the request tables
/// the API lists. Notifications are delivered from the journal.
extension SQLiteStore {
    static let fedKey = "journal.fed"
    static let legacyStateKeys = ["generation", "revisionCounter", "now"]

    /// The journal position up to which a legacy outbox table holds every notification (0 on a new file).
    public func outboxFedPosition() throws -> UInt64 {
        try read { db in
            try String.fetchOne(db, sql: "SELECT value FROM engine_meta WHERE key = ?", arguments: [Self.fedKey]).flatMap { UInt64($0) } ?? 0
        }
    }

    /// The sinks' stored cursors.
    public func sinkCursors() throws -> [String: Int64] {
        try read { db in try OutboxRepository().cursors(in: db) }
    }

    /// Stores the starting cursors of sinks that have none yet (a cursor already stored is never moved back).
    public func registerSinks(_ cursors: [String: Int64]) throws {
        try write { db in
            for (sink, cursor) in cursors { try OutboxRepository().acknowledge(sink: sink, through: cursor, in: db) }
        }
    }

    /// Every row of the legacy outbox table (a version that copied notifications into SQLite), oldest first.
    public func legacyOutbox() throws -> [StoredNotification] {
        try read { db in try OutboxRepository().entries(after: 0, limit: Int.max, in: db) }
    }

    /// Empties the legacy outbox table: every sink has settled its rows.
    public func clearLegacyOutbox() throws {
        try write { db in try OutboxRepository().deleteLegacy(in: db) }
    }

    /// Whether the file holds engine state written before the journal (a service upgraded in place): requests or
    /// devices rows, or counters. The host then restores from it once and checkpoints.
    public func hasLegacyState() throws -> Bool {
        try read { db in
            let requests = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM requests") ?? 0
            let devices = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM devices") ?? 0
            return requests > 0 || devices > 0
        }
    }

    /// The listing and the delivered list from one snapshot (the legacy restore takes their JSON from here too).
    public func listing() throws -> (requests: [StoredRequest], delivered: [DeliveredEntry]) {
        try read { db in (try RequestRepository().all(in: db), try DeliveredRepository().all(in: db)) }
    }

    /// Forgets the legacy device state once a checkpoint holds it (requests stay: they are the listing).
    public func dropLegacyDeviceState() throws {
        try write { db in
            try db.execute(sql: "DELETE FROM pair_states")
            try db.execute(sql: "DELETE FROM devices")
        }
    }

    // MARK: The request listing

    public func requestsPage(after cursor: String?, offset: Int, limit: Int, region: String?, device: String?) throws -> [StoredRequest] {
        try read { db in try RequestRepository().page(after: cursor, offset: offset, limit: limit, region: region, device: device, in: db) }
    }

    public func request(_ identifier: String) throws -> StoredRequest? {
        try read { db in try RequestRepository().find(identifier, in: db) }
    }

    public func requests() throws -> [StoredRequest] {
        try read { db in try RequestRepository().all(in: db) }
    }

    public func deliveredRequests() throws -> [DeliveredEntry] {
        try read { db in try DeliveredRepository().all(in: db) }
    }

    /// Adds or replaces requests in the listing (and takes them out of the delivered list).
    public func saveRequests(_ requests: [StoredRequest]) throws {
        guard !requests.isEmpty else { return }
        try write { db in
            for r in requests {
                try RequestRepository().save(r, in: db)
                try DeliveredRepository().delete(identifier: r.identifier, in: db)
            }
        }
    }

    public func deleteRequests(_ identifiers: [String]) throws {
        guard !identifiers.isEmpty else { return }
        _ = try write { db in try RequestRepository().delete(identifiers: identifiers, in: db) }
    }

    public func deleteAllRequests() throws {
        try write { db in try RequestRepository().deleteAll(in: db) }
    }

    /// Moves fired `repeats: false` requests from the listing to the delivered list.
    public func markDelivered(_ entries: [DeliveredEntry]) throws {
        guard !entries.isEmpty else { return }
        try write { db in
            for e in entries {
                try DeliveredRepository().save(e, in: db)
                try RequestRepository().delete(identifiers: [e.identifier], in: db)
            }
        }
    }

    /// Rewrites the listing and the delivered list to match the engine after a restart: a change written to them
    /// whose journal record did not become durable before a crash is undone here.
    public func replaceRequestListing(_ requests: [StoredRequest], delivered: [DeliveredEntry]) throws {
        try write { db in
            let wanted = Dictionary(requests.map { ($0.identifier, $0) }, uniquingKeysWith: { $1 })
            let stored = try RequestRepository().all(in: db)
            let stale = stored.filter { wanted[$0.identifier]?.json != $0.json }.map(\.identifier)
            try RequestRepository().delete(identifiers: stale, in: db)
            let present = Set(stored.map(\.identifier)).subtracting(stale)
            for r in requests where !present.contains(r.identifier) { try RequestRepository().save(r, in: db) }
            try db.execute(sql: "DELETE FROM delivered")
            for e in delivered { try DeliveredRepository().save(e, in: db) }
        }
    }
}
