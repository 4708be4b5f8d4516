import JSON
import Delivery
import EngineLog
import Journal
import Logging
import Sinks
import Storage
import TriggerEngine

/// The one owner of the engine, on a journal. Every change follows the same order: apply it to the engine in
/// memory, write the input and the notifications it fired as one journal record, and answer once an fsync covers
/// that record. Concurrent batches share fsyncs (group commit): while one waits, the next is evaluated and written
/// behind it, so the order in the journal is the order of evaluation.
///
/// Engine state reaches the disk only as periodic checkpoints (`checkpoint()`); a restart loads the newest and
/// replays the journal after it (`EngineHost+Restore`). The sinks deliver from the journal: `OutboxFeeder` hands
/// each durable record's notifications to the in-memory `JournalOutbox`, and a restart reads them again from the
/// lowest sink cursor.
///
/// If a journal write fails, memory is ahead of the journal and cannot be rolled back: the host refuses further
/// changes (and `/readyz` says so) until a restart replays what is durable.
public actor EngineHost {
    let state: HostState
    public nonisolated let store: any StateStore
    public nonisolated let log: any HostLog
    public nonisolated let feeder: OutboxFeeder
    public nonisolated let outbox: JournalOutbox
    public nonisolated let outboxSignal: OutboxSignal
    public nonisolated let restored: RestoreReport
    let logger: Logger
    let metrics = HostMetrics()
    /// The actor's jobs run on this thread (`EngineThread` says why). Started once nothing in `init` can throw,
    /// so a host that fails to open leaves no thread behind.
    private nonisolated let thread: EngineThread
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    var engine: TriggerEngine { state.engine }
    private var failure: String?
    /// The entries and exits counted as of the last batch, for the transition metrics.
    private var countedTransitions: (entries: Int, exits: Int)
    /// False once shutdown began: new input is refused so the last batches can be made durable and delivered.
    private var intakeOpen = true
    /// Writes the journal records off the actor, in the order they are handed over.
    let writer: RecordWriter
    /// The position the next record gets: records are handed to `writer` before they are in the log.
    var nextPosition: UInt64
    /// Journal positions of the checkpoints on disk, newest first.
    var checkpointPositions: [UInt64]
    var checkpointRunning = false
    /// Records since the newest checkpoint that changed more than the clock.
    var changesSinceCheckpointCount: UInt64 = 0
    /// The engine's forgotten-device count when the last record was written: a clock tick that forgot devices
    /// (`--device-retention`) changed the state, so the next checkpoint shrinks by them.
    var devicesExpiredCounted = 0
    /// Fixes and sightings journaled since the newest checkpoint: what a restart would replay.
    var inputsSinceCheckpointCount: UInt64 = 0
    /// The newest checkpoint's size, and `writer.bytesWritten` when it was taken (`journalBytesSinceCheckpoint`).
    var lastCheckpointBytes = 0
    var bytesWrittenAtCheckpoint = 0
    /// The newest clock tick that changed nothing but the clock, not yet journaled (`advance(to:)`).
    var heldTick: Timestamp?
    /// Scanners' listening ticks held like clock ticks (`observerListening`), by observer: written, by name, just
    /// before the next record; dropped when a checkpoint holds them.
    var heldListening: [String: Timestamp] = [:]
    /// Notifications journaled but not yet durable at which fixes and sightings are refused (503).
    public nonisolated let feedBacklogLimit: Int

    /// Restores the engine from the newest checkpoint and the journal after it (see `EngineHost+Restore`).
    /// - Parameter sinks: the names of the configured sinks, whose stored cursors say from where the outbox must
    ///   be read again; with none, notifications are journaled and held for no one.
    public init(store: any StateStore, log: any HostLog, configuration: TriggerEngine.Configuration, sinks: [String] = [],
                recover: Bool = false, feedBacklogLimit: Int = 200_000, logger: Logger) throws {
        self.feedBacklogLimit = feedBacklogLimit
        let signal = OutboxSignal()
        let stored = try store.sinkCursors()
        let legacy = try store.legacyOutbox()
        // A file from the version that kept an outbox table counted a sink without a row as having settled nothing.
        let outbox = JournalOutbox(sinks: sinks, cursors: stored,
                                   newSinksStart: legacy.isEmpty ? JournalOutbox.cursor(before: log.nextPosition) : 0)
        outbox.loadLegacy(legacy.map(OutboxEntry.init))
        // A sink's start is stored before anything is delivered: were it not, a sink that had settled nothing when
        // the process died would, at the next start, be taken for a new one and skip what it never received.
        let added = outbox.cursors.filter { stored[$0.key] == nil }
        if !added.isEmpty { try store.registerSinks(added) }
        let feeder = OutboxFeeder(outbox: outbox, log: log, signal: signal, logger: logger)
        let restore = try Self.restore(store: store, log: log, configuration: configuration, recover: recover, feeder: feeder, logger: logger)
        self.thread = EngineThread(logger: logger)
        self.outbox = outbox
        self.state = restore.state
        self.store = store
        self.log = log
        self.feeder = feeder
        self.outboxSignal = signal
        self.restored = restore.report
        self.logger = logger
        self.checkpointPositions = restore.checkpoints
        self.writer = RecordWriter(log: log, feeder: feeder, metrics: HostMetrics(), logger: logger)
        self.nextPosition = log.nextPosition
        // What the restart replayed is not in a checkpoint yet: the next one is due with the first change.
        self.changesSinceCheckpointCount = UInt64(restore.report.replayed)
        self.inputsSinceCheckpointCount = UInt64(restore.report.replayedInputs)
        self.lastCheckpointBytes = restore.report.checkpointBytes
        let statistics = restore.state.engine.statistics
        countedTransitions = (statistics.entries, statistics.exits)
        metrics.restart.record(restore.report.seconds)
        metrics.skippedRecords.record(Double(restore.report.skippedRecords))
        metrics.recoverySkipped.record(Double(restore.report.skipped.count))
    }

    deinit { thread.stop() }

    /// Nil while healthy; otherwise why changes are refused.
    public var failureReason: String? {
        failure ?? writer.failure.map { "a journal write failed: \($0)" } ?? log.failureReason.map { "the journal failed: \($0)" }
    }

    /// Refuses every later fix and sighting batch; batches already running finish and become durable first.
    public func closeIntake() { intakeOpen = false }

    // MARK: Fixes and sightings

    /// Evaluates one batch of fixes; returns the rejected ones by line, once the batch is durable.
    /// `lines[k]` is where `fixes[k]` was read (the rejections name it).
    public nonisolated func process(fixes: [LocationFix], lines: [Int]) async throws(HostError) -> [(line: Int, reason: FixRejection)] {
        try await evaluateUntilDurable(.fixes(fixes), lines: lines)
    }

    /// `process(fixes:lines:)` for fixes paired with their lines.
    public nonisolated func process(fixes: [(line: Int, fix: LocationFix)]) async throws(HostError) -> [(line: Int, reason: FixRejection)] {
        try await process(fixes: fixes.map(\.fix), lines: fixes.map(\.line))
    }

    /// Evaluates one batch of beacon sightings, like `process(fixes:lines:)`.
    public nonisolated func process(sightings: [BeaconSighting], lines: [Int]) async throws(HostError) -> [(line: Int, reason: FixRejection)] {
        try await evaluateUntilDurable(.sightings(sightings), lines: lines)
    }

    /// `process(sightings:lines:)` for sightings paired with their lines.
    public nonisolated func process(sightings: [(line: Int, sighting: BeaconSighting)]) async throws(HostError) -> [(line: Int, reason: FixRejection)] {
        try await process(sightings: sightings.map(\.sighting), lines: sightings.map(\.line))
    }

    /// The one path of fixes and sightings: `evaluate` on the engine's thread, and the answer once the record is
    /// durable, with one suspension resumed by the thread that made it durable. Awaiting `evaluate` and then
    /// `durable` cost two more thread hand-offs per batch (back to the pool after the evaluation, and the pool's
    /// turn to register the wait); measured on `Tools/bench/http_ingest.py` (alternating builds): see BENCHMARKS.md.
    private nonisolated func evaluateUntilDurable(_ input: HostInput, lines: [Int]) async throws(HostError) -> [(line: Int, reason: FixRejection)] {
        let result = await withCheckedContinuation { (c: CheckedContinuation<Result<[(line: Int, reason: FixRejection)], HostError>, Never>) in
            thread.run {
                self.assumeIsolated { host in
                    let evaluated: (end: UInt64, rejected: [(line: Int, reason: FixRejection)])
                    do throws(HostError) { evaluated = try host.evaluate(input, lines: lines) } catch { return c.resume(returning: .failure(error)) }
                    host.whenAcknowledgeable(evaluated.end) { failure in
                        c.resume(returning: failure.map { .failure($0) } ?? .success(evaluated.rejected))
                    }
                }
            }
        }
        return try result.get()
    }

    /// The one path of fixes and sightings, on the actor: evaluate, then write the journal record; returns the
    /// position durability must reach before the answer.
    private func evaluate(_ input: HostInput, lines: [Int]) throws(HostError) -> (end: UInt64, rejected: [(line: Int, reason: FixRejection)]) {
        try checkHealthy()
        try checkIntake()
        let started = ContinuousClock.now
        let outcome = state.apply(input)
        metrics.evaluation.record(duration: ContinuousClock.now - started)
        let end = write(input, outcome)
        let accepted = lines.count - outcome.rejected.count
        if case .fixes = input { metrics.fixes.increment(by: accepted) } else { metrics.sightings.increment(by: accepted) }
        return (end, outcome.rejected.map { (lines[$0.index], $0.reason) })
    }

    // MARK: Journal

    /// Hands the record to the writer (which queues the notifications once it is written), updates the listing;
    /// returns the position after it. Failures of the write reach whoever waits for it (`durable`).
    func write(_ input: HostInput, _ outcome: HostState.Outcome) -> UInt64 {
        writeHeldTick()
        let position = nextPosition
        nextPosition += 1
        writer.submit(position: position, input: input, fired: outcome.fired)
        let expired = state.engine.statistics.devicesExpired
        if case .clock = input, outcome.fired.isEmpty, expired == devicesExpiredCounted {} else { changesSinceCheckpointCount += 1 }
        devicesExpiredCounted = expired
        inputsSinceCheckpointCount += UInt64(input.itemCount)
        updateListing(outcome)
        countTransitions()
        if !outcome.fired.isEmpty { metrics.notifications.increment(by: outcome.fired.count) }
        return position + 1
    }

    /// Writes the record and returns once it may be acknowledged. The wait runs off the actor, so the next batch
    /// is evaluated and written while this one's fsync runs, and no answer waits for the actor.
    func commit(_ input: HostInput, _ outcome: HostState.Outcome) async throws(HostError) {
        let end = write(input, outcome)
        let failure = await withCheckedContinuation { c in whenAcknowledgeable(end) { c.resume(returning: $0) } }
        if let failure { throw failure }
    }

    /// Calls `done` once the journal lets the records before `end` be acknowledged (nil), or with the error to
    /// answer, from the thread that decided it. A journal that cannot make them durable refuses further changes (it
    /// refuses them already: the host's own flag follows); a failed write has set the writer's.
    nonisolated func whenAcknowledgeable(_ end: UInt64, _ done: @escaping @Sendable (HostError?) -> Void) {
        let started = ContinuousClock.now
        writer.whenDurable(through: end, .acknowledgeable) { result in
            switch result {
            case .success:
                self.metrics.durable.record(duration: ContinuousClock.now - started)
                done(nil)
            case .failure(let error):
                if self.writer.failure == nil { Task { await self.fail("the journal could not be made durable: \(error)") } }
                done(.unavailable("the change could not be made durable: \(error)"))
            }
        }
    }

    /// Returns once every record handed over so far is in the log and durable: a shutdown's last clock records
    /// reach the journal before it is closed, and a sync interval's pending fsync is not waited for (the outbox
    /// and the final checkpoint then find everything durable).
    public func drainWrites() async {
        try? await writer.waitDurable(through: nextPosition, .syncedNow)
    }

    private func fail(_ reason: String) {
        failure = failure ?? reason
        logger.critical("journal fsync failed; refusing further changes until a restart", metadata: ["error": "\(reason)"])
    }

    /// The request listing follows the engine in journal order (a restart rewrites it from the engine anyway).
    private func updateListing(_ outcome: HostState.Outcome) {
        do {
            if outcome.removedAll { try store.deleteAllRequests() } else { try store.deleteRequests(outcome.removed) }
            try store.saveRequests(outcome.saved)
            try store.markDelivered(outcome.delivered)
        } catch {
            // The journal has the change; only the listing is behind until a restart rewrites it.
            logger.error("request listing not updated", metadata: ["error": "\(error)"])
        }
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

    // MARK: Internals

    func checkHealthy() throws(HostError) {
        if let reason = failureReason { throw .unavailable("changes are refused until a restart: \(reason)") }
    }

    private func checkIntake() throws(HostError) {
        guard intakeOpen else { throw .shuttingDown }
        // Notifications journaled faster than fsyncs make them durable wait in memory: past the bound, new input
        // waits (503) rather than memory growing without end.
        let backlog = feeder.backlog
        if backlog >= feedBacklogLimit {
            throw .unavailable("\(backlog) notifications are waiting for the journal's fsync (bound \(feedBacklogLimit)); retry shortly")
        }
    }
}
