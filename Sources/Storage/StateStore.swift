import EngineLog
import TriggerEngine

/// What the service keeps besides the journal, named for what it does: the request listing the API pages through,
/// the delivered list, each sink's cursor and dead letters, and what a file from before the journal held. Every
/// call is one transaction. `SQLiteStore` is the service's; `MemoryStore` serves tests about logic, not SQLite.
public protocol StateStore: AnyObject, Sendable {
    /// Nil while healthy; else why the store cannot be trusted (the last write's failure). `/readyz` answers 503 with it.
    var unhealthyReason: String? { get }
    /// Flushes and closes; the store is unusable afterwards.
    func close() throws

    // MARK: Sinks

    /// The sinks' stored cursors.
    func sinkCursors() throws -> [String: Int64]
    /// Stores the starting cursors of sinks that have none yet (a cursor already stored is never moved back).
    func registerSinks(_ cursors: [String: Int64]) throws
    /// Moves the sink's cursor to `cursor` and stores what it refused for good as dead letters, together.
    func settle(sink: String, through cursor: Int64, refused: [RefusedEntry], at time: Timestamp) async throws

    // MARK: Dead letters

    func deadLetterCount(sink: String) throws -> Int
    /// Newest first; every sink's when `sink` is nil.
    func deadLetters(sink: String?, limit: Int) throws -> [DeadLetter]
    func deadLetter(id: Int64) throws -> DeadLetter?
    /// Marks the letter for another delivery attempt; false if there is no such letter.
    func requestReplay(ofDeadLetter id: Int64, at time: Timestamp) throws -> Bool
    /// The sink's letters waiting for a replay, oldest request first.
    func deadLettersToReplay(sink: String, limit: Int) throws -> [DeadLetter]
    /// A replay the sink acknowledged: the letter is delivered and goes.
    func deleteDeadLetter(id: Int64) async throws
    /// A replay the sink refused again: its new answer, and no further replay until asked.
    func deadLetterRefusedAgain(id: Int64, status: Int?, response: String, at time: Timestamp) async throws

    // MARK: The request listing

    /// A page in identifier order after `cursor` (or from `offset`), optionally of one region's or device's requests.
    func requestsPage(after cursor: String?, offset: Int, limit: Int, region: String?, device: String?) throws -> [StoredRequest]
    func request(_ identifier: String) throws -> StoredRequest?
    func requests() throws -> [StoredRequest]
    func deliveredRequests() throws -> [DeliveredEntry]
    /// The listing and the delivered list from one snapshot (a request is in exactly one of them).
    func listing() throws -> (requests: [StoredRequest], delivered: [DeliveredEntry])
    /// Adds or replaces requests in the listing (and takes them out of the delivered list).
    func saveRequests(_ requests: [StoredRequest]) throws
    func deleteRequests(_ identifiers: [String]) throws
    func deleteAllRequests() throws
    /// Moves fired `repeats: false` requests from the listing to the delivered list.
    func markDelivered(_ entries: [DeliveredEntry]) throws
    /// Rewrites the listing and the delivered list to match the engine after a restart.
    func replaceRequestListing(_ requests: [StoredRequest], delivered: [DeliveredEntry]) throws

    // MARK: A file from before the journal

    /// The journal position up to which a legacy outbox table holds every notification (0 when there is none).
    func outboxFedPosition() throws -> UInt64
    /// Every row of the legacy outbox table, oldest first.
    func legacyOutbox() throws -> [StoredNotification]
    /// Empties the legacy outbox table: every sink has settled its rows.
    func clearLegacyOutbox() throws
    /// Whether engine state written before the journal is present (restored once, then checkpointed).
    func hasLegacyState() throws -> Bool
    /// Forgets the legacy device state once a checkpoint holds it.
    func dropLegacyDeviceState() throws
    /// Loads the legacy state into a new engine.
    func restore(into engine: TriggerEngine, decoder: RequestDecoder) throws -> RestoreSummary
}
