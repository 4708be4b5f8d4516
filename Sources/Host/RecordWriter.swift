import Dispatch
import Journal
import Logging
import Synchronization
import TriggerEngine

/// Renders, encodes and writes the host's journal records on a thread of its own, in the order the host evaluated
/// them, so the host's actor only evaluates. Measured on `Tools/bench/http_ingest.py`: the actor was the serial
/// stage every batch passes (its share ~80 % busy), and rendering the notifications, encoding the record and the
/// `pwrite` were 29 % of its time per batch.
///
/// The host gives each record its position when it hands it over (positions count records, one per input), so it
/// can answer a batch once `written(through:)` and the log's `waitDurable(through:)` both returned. After a failed
/// write nothing more is written (a later record would take the failed one's position), and every waiter, present
/// and future, is told why.
final class RecordWriter: Sendable {
    private struct State {
        /// Every record before this position is in the log.
        var written: UInt64
        var failure: String?
        /// Called once every record before `position` is in the log (nil) or with why it never will be.
        var waiters: [(position: UInt64, done: @Sendable (String?) -> Void)] = []
    }

    private let state: Mutex<State>
    /// Used on `queue` only: one encoding buffer for every record.
    private let scratch = Mutex(ByteWriter(capacity: 1 << 16))
    private let queue = DispatchQueue(label: "geotrigger-journal-write")
    private let log: any HostLog
    private let feeder: OutboxFeeder
    private let metrics: HostMetrics
    private let logger: Logger

    init(log: any HostLog, feeder: OutboxFeeder, metrics: HostMetrics, logger: Logger) {
        state = Mutex(State(written: log.nextPosition))
        self.log = log
        self.feeder = feeder
        self.metrics = metrics
        self.logger = logger
    }

    /// Why records are no longer written, or nil.
    var failure: String? { state.withLock { $0.failure } }

    /// Queues the record of `input` and the notifications it fired, which takes `position`.
    func submit(position: UInt64, input: HostInput, fired: [FiredNotification]) {
        queue.async { self.write(position: position, input: input, fired: fired) }
    }

    private func write(position: UInt64, input: HostInput, fired: [FiredNotification]) {
        guard failure == nil else { return }
        let notifications = fired.map(RecordedNotification.init)
        let record = scratch.withLock { HostRecord(input: input, notifications: notifications).journalRecord(using: &$0) }
        let range: Range<UInt64>
        do {
            range = try log.write([record])
        } catch {
            logger.critical("journal write failed; refusing further changes until a restart", metadata: ["error": "\(error)"])
            finish(failure: "\(error)")
            return
        }
        guard range.lowerBound == position else {
            // Cannot happen while this writer is the log's only writer; were it to, acknowledging would be a lie.
            logger.critical("journal position mismatch", metadata: ["expected": "\(position)", "got": "\(range.lowerBound)"])
            finish(failure: "the journal record for position \(position) was written at \(range.lowerBound)")
            return
        }
        metrics.journalRecords.increment()
        metrics.journalBytes.increment(by: record.payload.count)
        feeder.enqueue(position: range.lowerBound, notifications)
        finish(written: range.upperBound)
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

    /// Returns once every record before `position` is in the log (not yet durable); throws why when a write failed.
    func written(through position: UInt64) async throws(HostError) {
        let failure: String? = await withCheckedContinuation { c in
            whenWritten(through: position) { c.resume(returning: $0) }
        }
        if let failure { throw .unavailable("the change could not be stored: \(failure)") }
    }

    /// How waiting for a record to be durable ended.
    enum Durability: Sendable {
        case durable
        /// A journal write failed (`failure`): the record is not in the log.
        case notWritten(String)
        /// The log could not make it durable.
        case notDurable(JournalError)
    }

    /// Calls `done` once every record before `position` is durable, or with why not: from the thread that decided
    /// it (the write's, or the fsync's). Waiting for the write and then for the fsync took a hop to the cooperative
    /// pool between them.
    func whenDurable(through position: UInt64, _ done: @escaping @Sendable (Durability) -> Void) {
        let log = self.log
        whenWritten(through: position) { failure in
            if let failure { return done(.notWritten(failure)) }
            log.whenDurable(through: position) { error in done(error.map(Durability.notDurable) ?? .durable) }
        }
    }
}
