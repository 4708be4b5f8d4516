import Dispatch
import EngineLog
import Journal
import Logging
import Synchronization
import TriggerEngine

/// Renders, encodes and writes the host's journal records on a thread of its own, in the order the host evaluated
/// them, so the host's actor only evaluates. Measured on `Tools/bench/http_ingest.py`: the actor was the serial
/// stage every batch passes (its share ~80 % busy), and rendering the notifications, encoding the record and the
/// `pwrite` were 29 % of its time per batch.
///
/// The same thread syncs what it wrote (`drain`): every record handed over is written, then one fsync covers them,
/// and records handed over during it are written after it and share the next one. Waking a separate fsync thread
/// per group commit cost 2–4 % of serve's CPU per fix (same throughput: the batches wait for the disk either way).
///
/// The thread is one of its own (`geotrigger-jrn`), at the engine thread's raised priority, rather than a dispatch
/// queue's: when an fsync completes, the answers it releases no longer wait for a core behind request decoding.
/// Seven alternating pairs on `Tools/bench/http_ingest.py`: journal-durable per batch 0.61–0.83 ms against
/// 0.96–1.20 ms, serve/replay 0.45 on average against 0.43.
///
/// The host gives each record its position when it hands it over (positions count records, one per input), so it
/// can answer a batch once its record is written and the log says it is durable (`whenDurable`). After a failed
/// write nothing more is written (a later record would take the failed one's position), and every waiter, present
/// and future, is told why.
final class RecordWriter: DurableWaiting {
    private struct State {
        /// Every record before this position is in the log.
        var written: UInt64
        var failure: String?
        /// Called once every record before `position` is in the log (nil) or with why it never will be.
        var waiters: [(position: UInt64, done: @Sendable (String?) -> Void)] = []
        /// Records handed over and not yet written, in position order.
        var pending: [(position: UInt64, input: HostInput, fired: [FiredNotification])] = []
        /// Whether `drain` runs (or is queued).
        var draining = false
    }

    private let state: Mutex<State>
    /// Used on `thread` only: one encoding buffer for every record.
    private let scratch = Mutex(ByteWriter(capacity: 1 << 16))
    private let thread = EngineThread(name: "geotrigger-jrn")
    private let log: any HostLog
    private let feeder: OutboxFeeder
    private let metrics: HostMetrics
    /// Payload bytes journaled since the start: what the checkpoint scheduler weighs a checkpoint against.
    let bytesWritten = Atomic<Int>(0)
    private let logger: Logger

    init(log: any HostLog, feeder: OutboxFeeder, metrics: HostMetrics, logger: Logger) {
        state = Mutex(State(written: log.nextPosition))
        self.log = log
        self.feeder = feeder
        self.metrics = metrics
        self.logger = logger
    }

    deinit { thread.stop() }

    /// Why records are no longer written, or nil.
    var failure: String? { state.withLock { $0.failure } }

    /// Queues the record of `input` and the notifications it fired, which takes `position`.
    func submit(position: UInt64, input: HostInput, fired: [FiredNotification]) {
        let start = state.withLock { s -> Bool in
            s.pending.append((position, input, fired))
            defer { s.draining = true }
            return !s.draining
        }
        if start { thread.run { self.drain() } }
    }

    /// Writes every record handed over, then syncs them with one fsync on this thread, until none is left: the
    /// group commit. Records handed over during an fsync are written after it, together.
    private func drain() {
        while true {
            let batch = state.withLock { s in
                defer { s.pending.removeAll(keepingCapacity: true) }
                if s.pending.isEmpty { s.draining = false }
                return s.pending
            }
            if batch.isEmpty { return }
            guard let written = write(batch), let last = written.last else { continue }
            log.syncWritten()
            // Once per batch: which parts the event streams open now want (nothing more to queue without them).
            let interest = feeder.stream.admit(through: last.position + 1)
            for w in written { feeder.enqueue(position: w.position, w.notifications, fixes: interest.positions ? w.fixes : [], interest: interest) }
            finish(written: last.position + 1)
        }
    }

    /// Writes the records handed over, in one write of the log (one `pwrite` past the page cache, where a group
    /// commit used to cost one per record); their fsync comes after. Nil when nothing more is written.
    private func write(_ batch: [(position: UInt64, input: HostInput, fired: [FiredNotification])]) -> [(position: UInt64, notifications: [RecordedNotification], fixes: [LocationFix])]? {
        guard failure == nil, let first = batch.first else { return nil }
        var written: [(position: UInt64, notifications: [RecordedNotification], fixes: [LocationFix])] = []
        written.reserveCapacity(batch.count)
        let records = scratch.withLock { w in
            batch.map { r in
                let notifications = r.fired.map(RecordedNotification.init)
                // The fixes array is shared, not copied: the event streams' positions read it only when asked for.
                if case .fixes(let fixes) = r.input { written.append((r.position, notifications, fixes)) } else { written.append((r.position, notifications, [])) }
                return HostRecord(input: r.input, notifications: notifications).journalRecord(using: &w)
            }
        }
        let range: Range<UInt64>
        do {
            range = try log.write(records, startingSync: false)
        } catch {
            logger.critical("journal write failed; refusing further changes until a restart", metadata: ["error": "\(error)"])
            finish(failure: "\(error)")
            return nil
        }
        guard range.lowerBound == first.position else {
            // Cannot happen while this writer is the log's only writer; were it to, acknowledging would be a lie.
            logger.critical("journal position mismatch", metadata: ["expected": "\(first.position)", "got": "\(range.lowerBound)"])
            finish(failure: "the journal record for position \(first.position) was written at \(range.lowerBound)")
            return nil
        }
        metrics.journalRecords.increment(by: records.count)
        let bytes = records.reduce(0) { $0 + $1.payload.count }
        metrics.journalBytes.increment(by: bytes)
        bytesWritten.add(bytes, ordering: .relaxed)
        return written
    }

    private func finish(written: UInt64? = nil, failure: String? = nil) {
        let ready = state.withLock { s -> [(@Sendable (String?) -> Void, String?)] in
            if let written { s.written = max(s.written, written) }
            if let failure { s.failure = s.failure ?? failure }
            if let f = s.failure {
                defer { s.waiters.removeAll() }
                return s.waiters.map { ($0.done, f) }
            }
            let done = s.waiters.filter { $0.position <= s.written }
            s.waiters.removeAll { $0.position <= s.written }
            return done.map { ($0.done, nil) }
        }
        for (done, f) in ready { done(f) }
    }

    /// Calls `done` once every record before `position` is in the log, or with why a write failed.
    private func whenWritten(through position: UInt64, _ done: @escaping @Sendable (String?) -> Void) {
        let now = state.withLock { s -> String?? in
            if let f = s.failure { return .some(f) }
            if s.written >= position { return .some(nil) }
            s.waiters.append((position, done))
            return nil
        }
        if let now { done(now) }
    }

    /// `DurableWaiting` for the host: first this writer's write of `position`, then the log's wait, answered from
    /// the thread that decided it (the write's, or the fsync's). A failed write answers `poisoned` with its reason:
    /// nothing after it is written. Waiting for the write and then for the fsync in two tasks took a hop to the
    /// cooperative pool between them.
    func whenDurable(through position: UInt64, _ level: Durability, _ done: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        let log = self.log
        whenWritten(through: position) { failure in
            if let failure { return done(.failure(.poisoned(reason: "a journal write failed: \(failure)"))) }
            log.whenDurable(through: position, level, done)
        }
    }
}
