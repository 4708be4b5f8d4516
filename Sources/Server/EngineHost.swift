import Delivery
import GRDB
import Logging
import Metrics
import Storage
import TriggerEngine

/// The one owner of the engine. Every change follows the same order: evaluate in memory, write what changed (and
/// the notifications it fired) in ONE SQLite transaction, and only then answer. The store is written synchronously
/// inside the actor on purpose: no other call can interleave between evaluating and committing, so the file
/// always holds a state whose notifications are all in the outbox.
///
/// If a commit fails, memory is ahead of the file and cannot be rolled back: the host refuses further changes
/// (and `/readyz` says so) until a restart reloads the last committed state.
public actor EngineHost {
    let engine: TriggerEngine
    let decoder: RequestDecoder
    public nonisolated let store: Store
    let logger: Logger
    let metrics = ServerMetrics()
    public nonisolated let outboxSignal: OutboxSignal
    public let restored: RestoreSummary
    private var failure: String?
    /// What each device's rows hold as last committed: a batch writes only what differs.
    private var storedDevices = DeviceStateMirror()
    /// The engine's entry and exit counts as of the last batch, for the transition metrics.
    private var countedTransitions: (entries: Int, exits: Int) = (0, 0)
    /// False once shutdown began: new input is refused (503) so the last batches can commit and be delivered.
    private var intakeOpen = true

    public init(store: Store, clock: ServerConfiguration.Clock, logger: Logger) throws {
        try self.init(store: store, configuration: ServerConfiguration(clock: clock).engineConfiguration, logger: logger)
    }

    public init(store: Store, configuration: TriggerEngine.Configuration, logger: Logger) throws {
        let engine = TriggerEngine(configuration: configuration)
        let decoder = RequestDecoder()
        restored = try store.restore(into: engine, decoder: decoder)
        self.engine = engine
        self.decoder = decoder
        self.store = store
        self.logger = logger
        self.outboxSignal = OutboxSignal()
        let statistics = engine.statistics
        countedTransitions = (statistics.entries, statistics.exits)
        logger.info("engine restored", metadata: ["requests": "\(restored.requests)", "devices": "\(restored.devices)",
                                                   "delivered": "\(restored.delivered)", "skipped": "\(restored.skipped)"])
    }

    /// Nil while healthy; otherwise why changes are refused.
    public var failureReason: String? { failure }

    /// Refuses every later fix and sighting batch; batches already running on the actor finish and commit first.
    public func closeIntake() { intakeOpen = false }

    // MARK: Requests

    public enum AddResult: Sendable, Equatable { case added, replaced }

    /// Adds or replaces requests given as JSON (one object or an array), all or none: every request is decoded and
    /// checked (placeholders included) before the first is added. Should the engine still refuse one, the ones
    /// before it are kept and stored, as `TriggerEngine.add(contentsOf:)` does.
    public func add(_ json: JSONValue) throws(Problem) -> [(identifier: String, result: AddResult)] {
        try checkHealthy()
        let requests: [NotificationRequest]
        do { requests = try decoder.decodeRequests(json) } catch { throw Problem.invalidRequest(error) }
        let items: [JSONValue] = json.arrayValue ?? [json]
        var out: [(identifier: String, result: AddResult)] = []
        for (k, r) in requests.enumerated() {
            do {
                let outcome = try engine.add(r)
                out.append((r.identifier, outcome == .added ? .added : .replaced))
            } catch {
                // Templates are checked by the engine: the requests before this one are in memory already.
                var e = error
                e.path = json.arrayValue == nil ? e.path : "[\(k)].\(e.path)"
                try commitRequests(Array(requests[..<k]), items: Array(items[..<k]))
                throw Problem.invalidRequest(e)
            }
        }
        try commitRequests(requests, items: items)
        return out
    }

    private func commitRequests(_ requests: [NotificationRequest], items: [JSONValue]) throws(Problem) {
        guard !requests.isEmpty else { return }
        let stored = zip(requests, items).compactMap { r, item -> StoredRequest? in
            engine.state(ofRequest: r.identifier).map { StoredRequest(identifier: r.identifier, json: item.jsonText, state: $0) }
        }
        let counters = engine.counters
        try commit { db in
            for s in stored {
                try RequestRepository().save(s, in: db)
                try DeliveredRepository().delete(identifier: s.identifier, in: db)
            }
            try EngineMetaRepository().save(counters, in: db)
        }
    }

    /// Removes the given requests; returns those that were pending.
    public func remove(_ identifiers: [String]) throws(Problem) -> [String] {
        try checkHealthy()
        let removed = engine.remove(identifiers: identifiers)
        try commit { db in try RequestRepository().delete(identifiers: removed, in: db) }
        return removed
    }

    /// Removes every pending request (delivered records stay); returns their identifiers.
    public func removeAll() throws(Problem) -> [String] {
        try checkHealthy()
        let all = engine.pendingRequests.map(\.identifier)
        engine.removeAll()
        try commit { db in try RequestRepository().deleteAll(in: db) }
        return all
    }

    // MARK: Fixes and sightings

    /// Evaluates one batch of fixes; returns the rejected ones by line, after the batch is committed.
    public func process(fixes: [(line: Int, fix: LocationFix)]) throws(Problem) -> [(line: Int, reason: FixRejection)] {
        try checkHealthy()
        try checkIntake()
        let deadlines = engine.pendingDeadlines
        var fired: [FiredNotification] = []
        var rejected: [(line: Int, reason: FixRejection)] = []
        var touched = Set<String>()
        let started = ContinuousClock.now
        for (line, fix) in fixes {
            touched.insert(fix.device)
            if case .rejected(let reason) = engine.process(fix, emit: { fired.append($0) }) { rejected.append((line, reason)) }
        }
        metrics.evaluation.record(duration: ContinuousClock.now - started)
        try commitBatch(touched: touched.union(passed(deadlines)), fired: fired)
        metrics.fixes.increment(by: fixes.count - rejected.count)
        return rejected
    }

    /// Evaluates one batch of beacon sightings, like `process(fixes:)`.
    public func process(sightings: [(line: Int, sighting: BeaconSighting)]) throws(Problem) -> [(line: Int, reason: FixRejection)] {
        try checkHealthy()
        try checkIntake()
        let deadlines = engine.pendingDeadlines
        var fired: [FiredNotification] = []
        var rejected: [(line: Int, reason: FixRejection)] = []
        var touched = Set<String>()
        let started = ContinuousClock.now
        for (line, s) in sightings {
            touched.insert(s.device)
            if case .rejected(let reason) = engine.process(s, emit: { fired.append($0) }) { rejected.append((line, reason)) }
        }
        metrics.evaluation.record(duration: ContinuousClock.now - started)
        try commitBatch(touched: touched.union(passed(deadlines)), fired: fired)
        metrics.sightings.increment(by: sightings.count - rejected.count)
        return rejected
    }

    /// Writes a batch's consequences in one transaction: the devices it may have changed (only the rows that
    /// differ from what is stored), the fired requests' firing counts (or their move to delivered), the
    /// notifications, the counters.
    private func commitBatch(touched: Set<String>, fired: [FiredNotification]) throws(Problem) {
        var devices = touched
        for n in fired { devices.insert(n.device) }
        var changes: [DeviceStateChange] = []
        changes.reserveCapacity(devices.count)
        for name in devices.sorted() {
            let change = engine.snapshot(ofDevice: name).map(storedDevices.change(to:)) ?? storedDevices.removal(of: name)
            if !change.isEmpty { changes.append(change) }
        }
        var firings: [(String, UInt64)] = []
        var delivered: [DeliveredRequest] = []
        for id in Set(fired.map(\.identifier)).sorted() {
            if let state = engine.state(ofRequest: id) {
                firings.append((id, state.firings))
            } else if let d = engine.delivered.last(where: { $0.request.identifier == id }) {
                delivered.append(d)
            }
        }
        let counters = engine.counters
        let started = ContinuousClock.now
        try commit { db in
            for c in changes { try DeviceStateRepository().apply(c, in: db) }
            for (id, n) in firings { try RequestRepository().updateFirings(identifier: id, firings: n, in: db) }
            for d in delivered {
                let json = try RequestRepository().find(d.request.identifier, in: db)?.json ?? "{}"
                try DeliveredRepository().save(.init(identifier: d.request.identifier, json: json, device: d.device,
                                                     deliveredAt: d.deliveredAt), in: db)
                try RequestRepository().delete(identifiers: [d.request.identifier], in: db)
            }
            for n in fired { try OutboxRepository().append(n, in: db) }
            try EngineMetaRepository().save(counters, in: db)
        }
        metrics.commit.record(duration: ContinuousClock.now - started)
        // Only now is it stored: a failed commit (thrown above) leaves the mirror as the file was.
        storedDevices.commit(changes)
        countTransitions()
        if !fired.isEmpty {
            metrics.notifications.increment(by: fired.count)
            outboxSignal.notify()
        }
    }

    // MARK: Clock

    /// Moves the clock (wall-clock mode), firing the dwell and beacon-exit deadlines it passes, committed like a
    /// batch. Does nothing when there is nothing to fire and no deadline passed.
    public func advance(to time: Timestamp) throws(Problem) {
        guard failure == nil, time > engine.now else { return }
        let deadlines = engine.pendingDeadlines
        var fired: [FiredNotification] = []
        engine.advance(to: time) { fired.append($0) }
        let changed = passed(deadlines)
        // No deadline passed: only the clock moved, and it is stored with the next real change.
        guard !changed.isEmpty || !fired.isEmpty else { return }
        try commitBatch(touched: changed, fired: fired)
    }

    /// A scanner listening as observer `device` heard nothing up to `time`: its own beacon deadlines up to then are
    /// settled (exits fire on time, not an allowed lateness later). Committed only when something fired or changed.
    public func observerListening(device: String, at time: Timestamp) throws(Problem) {
        try checkHealthy()
        // Its state changes only if one of its deadlines comes due (the wall clock does not move here).
        let due = engine.nextDeadline(ofDevice: device).map { $0 <= time } ?? false
        var fired: [FiredNotification] = []
        engine.observerListening(device: device, at: time) { fired.append($0) }
        guard due || !fired.isEmpty else { return }
        try commitBatch(touched: [device], fired: fired)
    }

    /// A scanner started listening as observer `device` at `time` (`serve --bluetooth`): once it has listened for a
    /// whole exit timeout, an unheard beacon region counts as outside and a first sighting is an entry. Committed
    /// like a batch, so a restart keeps it.
    public func observerStarted(device: String, at time: Timestamp) throws(Problem) {
        try checkHealthy()
        engine.observerStarted(device: device, at: time)
        try commitBatch(touched: [device], fired: [])
    }

    /// Adds the entries and exits the engine counted since the last batch to the transition metrics.
    private func countTransitions() {
        let statistics = engine.statistics
        if statistics.entries > countedTransitions.entries {
            metrics.entries.increment(by: statistics.entries - countedTransitions.entries)
        }
        if statistics.exits > countedTransitions.exits {
            metrics.exits.increment(by: statistics.exits - countedTransitions.exits)
        }
        countedTransitions = (statistics.entries, statistics.exits)
    }

    /// Devices whose deadline (pending before the batch) the clock may have fired: a superset of those it did.
    private func passed(_ deadlines: [TriggerEngine.PendingDeadline]) -> Set<String> {
        guard let limit = engine.silentDeadlineLimit else { return [] }
        return Set(deadlines.lazy.filter { $0.deadline <= limit }.map(\.device))
    }

    // MARK: Devices

    public func status(ofDevice name: String) -> DeviceStatus? { engine.status(ofDevice: name) }

    // MARK: Internals

    private func checkHealthy() throws(Problem) {
        if let failure { throw Problem.unavailable("changes are refused until a restart: \(failure)") }
    }

    private func checkIntake() throws(Problem) {
        guard intakeOpen else { throw Problem.shuttingDown }
    }

    private func commit(_ body: (Database) throws -> Void) throws(Problem) {
        do {
            try store.write(body)
        } catch {
            failure = "a commit failed: \(error)"
            logger.critical("commit failed; refusing further changes", metadata: ["error": "\(error)"])
            throw Problem.unavailable("the change could not be stored: \(error)")
        }
    }
}
