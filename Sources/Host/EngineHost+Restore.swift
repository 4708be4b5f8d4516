import Delivery
import EngineLog
import Journal
import Logging
import Storage
import TriggerEngine

/// What a restart found and did, for the start-up log, `/readyz` and the tests.
public struct RestoreReport: Sendable, Hashable {
    /// The checkpoint used (its journal position), or nil when none was (a new service, or one upgraded from the
    /// per-batch SQLite state).
    public var checkpoint: UInt64?
    /// That checkpoint's size in bytes (0 without one): what rewriting it costs (`CheckpointScheduler`).
    public var checkpointBytes = 0
    public var requests = 0
    public var delivered = 0
    public var devices = 0
    /// Journal records applied after the checkpoint.
    public var replayed = 0
    /// Fixes and sightings in those records.
    public var replayedInputs = 0
    /// Notifications read again from the journal for sinks that had not settled them.
    public var refed = 0
    /// Replayed records whose notifications differ from the ones journaled (must stay 0: the engine is
    /// deterministic; a non-zero count is logged loudly).
    public var divergent = 0
    /// With `--recover`: what was skipped (damaged checkpoints, journal files and records), one line each.
    public var skipped: [String] = []
    /// The journal positions recoveries gave up, this start's and earlier ones' (`SkippedRange`).
    public var skippedRanges: [SkippedRange] = []
    /// Records in `skippedRanges`.
    public var skippedRecords: UInt64 { skippedRanges.reduce(0) { $0 + UInt64($1.records.count) } }
    /// Restored from the SQLite tables of a version before the journal.
    public var fromLegacyTables = false
    public var seconds = 0.0
}

/// A checkpoint or journal the host cannot start from (without `--recover`): the file, offset and what is wrong.
public struct RestoreError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

extension EngineHost {
    struct Restored {
        var state: HostState
        var report: RestoreReport
        var checkpoints: [UInt64]
    }

    /// Restart: the newest valid checkpoint, then every journal record after it applied in order through the same
    /// path as live input. Notifications some sink has not settled are read again into the outbox.
    static func restore(store: any StateStore, log: any HostLog, configuration: TriggerEngine.Configuration, recover: Bool,
                        feeder: OutboxFeeder, logger: Logger) throws -> Restored {
        let started = ContinuousClock.now
        var report = RestoreReport()
        report.skipped = log.recovered
        report.skippedRanges = log.skippedRanges
        let gaps = log.skippedRanges
        var state = HostState(configuration: configuration)
        var start: UInt64 = 0
        var positions: [UInt64] = []
        for (position, body) in try log.checkpoints() {
            positions.append(position)
            guard report.checkpoint == nil else { continue }
            do {
                let b = try body.get()
                let candidate = HostState(configuration: configuration)
                let counts = try candidate.restoreCheckpoint(b)
                state = candidate
                start = position
                report.checkpoint = position
                report.checkpointBytes = b.count
                report.requests = counts.requests
                report.delivered = counts.delivered
            } catch {
                let what = "checkpoint at journal position \(position): \(error)"
                guard recover else {
                    throw RestoreError(reason: "\(what); start with --recover to use an older checkpoint and the journal after it")
                }
                logger.critical("restore: damaged checkpoint skipped (--recover)", metadata: ["checkpoint": "\(what)"])
                report.skipped.append(what)
            }
        }
        if report.checkpoint == nil, !report.skipped.isEmpty, log.nextPosition > 0 {
            // Every checkpoint was damaged: the journal alone can rebuild the state only if it starts at 0.
            logger.critical("restore: no usable checkpoint; replaying the whole journal")
        }
        if report.checkpoint == nil, log.nextPosition == 0, try store.hasLegacyState() {
            // Upgraded in place: the state is in the SQLite tables of the per-batch version. Read it once; the
            // first checkpoint (taken right after start) then holds it.
            let legacy = try store.restore(into: state.engine, decoder: state.decoder)
            let listing = try store.listing()
            for r in listing.requests { state.requestJSON[r.identifier] = r.json }
            for d in listing.delivered { state.deliveredJSON[d.identifier] = d.json }
            report.requests = legacy.requests
            report.delivered = legacy.delivered
            report.fromLegacyTables = true
            logger.notice("restore: read the state of a version before the journal from the database", metadata: [
                "requests": "\(legacy.requests)", "devices": "\(legacy.devices)"])
        }
        // A sink cursor names a record the journal must hold (the journal's opening checks the same when it is told
        // the cursors): one past its end means acknowledged records are gone.
        let named = feeder.outbox.cursors.compactMap { sink, cursor in
            JournalOutbox.position(of: cursor).map { (sink: sink, position: $0) }
        }.max { $0.position < $1.position }
        if let named, named.position >= log.nextPosition {
            throw RestoreError(reason: "the journal ends at record \(log.nextPosition), but the sink \(named.sink) settled record \(named.position): records are missing; start with --recover to go on past them")
        }
        // Without sinks nothing is read again: the position past the journal's end.
        let fed = try feeder.outbox.refeedPosition(legacyFed: store.outboxFedPosition()) ?? UInt64.max
        var refeed: [(UInt64, [RecordedNotification])] = []
        var previous: UInt64?
        try log.forEachRecord(from: min(fed, start)) { position, record in
            // A gap a recovery recorded is read across; any other is damage.
            if let previous, position != previous + 1, !SkippedRange.cover(gaps, (previous + 1)..<position) {
                throw RestoreError(reason: "journal record \(position) follows record \(previous): records are missing")
            }
            // Records the checkpoint does not cover must all be there.
            if previous == nil, position > start, !SkippedRange.cover(gaps, start..<position) {
                let what = "the journal starts at record \(position), but the checkpoint covers only up to \(start): records \(start)..<\(position) are missing"
                guard recover else { throw RestoreError(reason: what + "; start with --recover to go on without them") }
                logger.critical("restore: records skipped (--recover)", metadata: ["reason": "\(what)"])
                report.skipped.append(what)
            }
            previous = position
            let r = try HostRecord(record, position: position)
            if position >= start {
                let outcome = state.apply(r.input)
                report.replayed += 1
                report.replayedInputs += r.input.itemCount
                if outcome.fired.map(\.deliveryId) != r.notifications.map(\.deliveryId) {
                    report.divergent += 1
                    if report.divergent <= 5 {
                        logger.critical("restore: replayed record fired other notifications than journaled", metadata: [
                            "position": "\(position)", "journaled": "\(r.notifications.map(\.deliveryId))",
                            "replayed": "\(outcome.fired.map(\.deliveryId))"])
                    }
                }
            }
            if position >= fed, !r.notifications.isEmpty {
                refeed.append((position, r.notifications))
                report.refed += r.notifications.count
            }
        }
        if previous == nil, start < log.nextPosition, !SkippedRange.cover(gaps, start..<log.nextPosition) {
            let what = "the journal holds no records from \(start) on, but it ends at \(log.nextPosition)"
            guard recover else { throw RestoreError(reason: what) }
            logger.critical("restore: records skipped (--recover)", metadata: ["reason": "\(what)"])
            report.skipped.append(what)
        }
        for (p, n) in refeed { feeder.enqueue(position: p, n) }
        let listing = state.listing
        try store.replaceRequestListing(listing.requests, delivered: listing.delivered)
        report.devices = state.engine.deviceCount
        report.seconds = (ContinuousClock.now - started) / .seconds(1)
        logger.notice("engine restored", metadata: [
            "checkpoint": "\(report.checkpoint.map(String.init) ?? "none")", "replayed": "\(report.replayed)",
            "requests": "\(state.engine.pendingCount)", "devices": "\(report.devices)", "refed": "\(report.refed)",
            "seconds": "\(report.seconds)"])
        return Restored(state: state, report: report, checkpoints: positions)
    }
}
