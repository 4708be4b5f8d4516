import Logging
import Sinks
import Storage
import TriggerEngine

/// Delivers the outbox to one sink. Entries are read in sequence order into a bounded window and queued per lane
/// (per device; one lane for the whole outbox when the sink's concurrency is 1). Up to `concurrency` lanes deliver
/// at once, each in order; a lane whose batch is not full takes along the next entries of idle lanes (other
/// devices), so a steady stream over many devices still goes out in batches. A lane that fails retryably backs off
/// on its own and blocks only its devices (until their backlog fills the window). Every outcome is stored before the
/// entries leave the window: dead letters are written, the sink's cursor moves over the contiguous settled prefix
/// (one row), and the outbox lets go of what every sink has settled. Entries settled beyond the cursor (a later device's) are remembered in memory only: a
/// restart delivers them again, with the same deliveryIds.
actor SinkWorker {
    let configured: ConfiguredSink
    var sink: any NotificationSink { configured.sink }
    let store: any StateStore
    let outbox: JournalOutbox
    let retry: RetryPolicy
    let window: Int
    let pressure: OutboxPressure
    let logger: Logger
    let metrics: DeliveryMetrics

    var lanes: [String: [OutboxEntry]] = [:]
    var running: Set<String> = []
    var retryAt: [String: ContinuousClock.Instant] = [:]
    var attempts: [String: Int] = [:]
    var queued = 0
    /// The highest sequence read into memory.
    var readThrough: Int64?
    var replaying = false
    var replayRetryAt: ContinuousClock.Instant?
    var replayAttempts = 0
    /// The replay requests counted when the database was last asked for replays (nil: not yet, so at start).
    var replaysChecked: Int?
    /// The last look left replays waiting (a full page, or one to retry).
    var replaysMayWait = false
    let replayRequests: @Sendable () -> Int
    var stopping = false
    /// Per lane: entries at its front that were delivered and wait for their settlement's commit. The lane reads
    /// on past them, so its next batch goes out while the commit's fsync runs.
    var inFlight: [String: Int] = [:]
    /// Per lane: moved on when a commit fails, so the settlements the lane made before that are not applied (its
    /// entries are delivered again from the first one not stored).
    var epochs: [String: Int] = [:]

    let wakeups: AsyncStream<Void>
    let continuation: AsyncStream<Void>.Continuation

    /// Lanes whose entries ride in another lane's batch right now: not started on their own meanwhile, so a
    /// device's entries are never in two requests at once.
    var joined: Set<String> = []
    /// When each lane's last delivery began, for `ConfiguredSink.linger`.
    var deliveryStarts: [String: ContinuousClock.Instant] = [:]
    /// The lanes waiting out a linger: cancelled when their batch fills up, or at shutdown.
    var lingerWaits: [String: Task<Void, any Error>] = [:]
    var pendingSettlements: [Settlement] = []
    /// Acknowledgement commits that failed in a row (the store refused them).
    var failedSettlements = 0
    var committing = false

    init(configured: ConfiguredSink, store: any StateStore, outbox: JournalOutbox, retry: RetryPolicy, window: Int,
         pressure: OutboxPressure, replayRequests: @escaping @Sendable () -> Int, logger: Logger) {
        self.configured = configured
        self.replayRequests = replayRequests
        self.store = store
        self.outbox = outbox
        self.retry = retry
        self.window = window
        self.pressure = pressure
        var logger = logger
        logger[metadataKey: "sink"] = "\(configured.sink.name)"
        self.logger = logger
        self.metrics = DeliveryMetrics(sink: configured.sink.name)
        (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        continuation.yield()
    }

    /// Asks the worker to look for new entries, due retries and replay requests.
    nonisolated func wake() { continuation.yield() }

    /// Stops taking new batches; `run` returns once the batches in flight are settled.
    nonisolated func finish() { continuation.finish() }

    func run() async {
        await withDiscardingTaskGroup { group in
            for await _ in wakeups {
                refill()
                startLanes(&group)
                startReplays(&group)
            }
            stopping = true
            // Lanes waiting out a linger deliver what they hold now (`runLane`).
            for wait in lingerWaits.values { wait.cancel() }
        }
    }

    /// One more pass once `run` has returned (shutdown): every unsettled entry, each batch tried once, no retries.
    /// A lane whose delivery fails is left in the outbox for the next start. True when the sink took everything.
    func flush() async -> Bool {
        // Settlements the lanes left behind are stored (or refused) first: they name entries of the lanes below.
        while committing || !pendingSettlements.isEmpty {
            try? await Task.sleep(for: .milliseconds(1))
        }
        lanes = [:]
        inFlight = [:]
        retryAt = [:]
        queued = 0
        readThrough = nil
        while true {
            refill()
            guard queued > 0 else { return true }
            for key in lanes.keys.sorted() {
                while let batch = lanes[key].map({ Array($0.prefix(configured.batchSize)) }), !batch.isEmpty {
                    do {
                        try await sink.deliver(batch)
                        guard await settle(key, batch, dead: nil) else { return false }
                    } catch {
                        let outcome = FailedDelivery(error, batchCount: batch.count)
                        if outcome.delivered > 0 {
                            guard await settle(key, Array(batch[..<outcome.delivered]), dead: nil) else { return false }
                        }
                        if outcome.delivered == batch.count { continue }
                        if case .refuse(_, let status, let response) = outcome.rest {
                            guard await settle(key, Array(batch[outcome.refused]), dead: (status, response)) else { return false }
                            continue
                        }
                        // A sink that fails now (a broker or webhook that is down) would fail every other lane
                        // too, each after its own timeout: shutdown would take a timeout per device. The rest
                        // stays in the outbox for the next start.
                        logger.warning("shutdown: delivery failed; this sink's undelivered entries stay in the outbox for the next start", metadata: [
                            "device": "\(batch[0].device)", "reason": "\(error)"])
                        return false
                    }
                }
                lanes[key] = nil
            }
        }
    }

    // MARK: Reading

    func refill() {
        guard queued < window else { return }
        let name = sink.name
        let after = readThrough ?? outbox.cursor(of: name)
        let entries = outbox.entries(after: after, limit: window - queued)
        readThrough = entries.last?.sequence ?? after
        for e in entries { lanes[lane(of: e), default: []].append(e) }
        queued += entries.count
        // A lingering lane whose batch is now full goes at once.
        for (key, wait) in lingerWaits where (lanes[key]?.count ?? 0) - inFlight[key, default: 0] >= configured.batchSize {
            wait.cancel()
        }
        metrics.depth.record(outbox.depth(of: name))
    }

    func lane(of entry: OutboxEntry) -> String { configured.concurrency == 1 ? "" : entry.device }

    nonisolated func wake(after delay: Duration) {
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            self?.wake()
        }
    }
}
