import Logging
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

    private var lanes: [String: [OutboxEntry]] = [:]
    private var running: Set<String> = []
    private var retryAt: [String: ContinuousClock.Instant] = [:]
    private var attempts: [String: Int] = [:]
    private var queued = 0
    /// The highest sequence read into memory.
    private var readThrough: Int64?
    private var replaying = false
    private var replayRetryAt: ContinuousClock.Instant?
    private var replayAttempts = 0
    /// The replay requests counted when the database was last asked for replays (nil: not yet, so at start).
    private var replaysChecked: Int?
    /// The last look left replays waiting (a full page, or one to retry).
    private var replaysMayWait = false
    let replayRequests: @Sendable () -> Int
    private var stopping = false
    /// Per lane: entries at its front that were delivered and wait for their settlement's commit. The lane reads
    /// on past them, so its next batch goes out while the commit's fsync runs.
    private var inFlight: [String: Int] = [:]
    /// Per lane: moved on when a commit fails, so the settlements the lane made before that are not applied (its
    /// entries are delivered again from the first one not stored).
    private var epochs: [String: Int] = [:]

    private let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

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

    private func refill() {
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

    private func lane(of entry: OutboxEntry) -> String { configured.concurrency == 1 ? "" : entry.device }

    // MARK: Lanes

    private func startLanes(_ group: inout DiscardingTaskGroup) {
        let now = ContinuousClock.now
        for (key, entries) in lanes where running.count < configured.concurrency {
            guard entries.count > inFlight[key, default: 0], !running.contains(key), !joined.contains(key) else { continue }
            if let due = retryAt[key], due > now { continue }
            running.insert(key)
            group.addTask { await self.runLane(key) }
        }
    }

    /// Lanes whose entries ride in another lane's batch right now: not started on their own meanwhile, so a
    /// device's entries are never in two requests at once.
    private var joined: Set<String> = []

    /// One lane's share of a batch: which entries of the lane, and its epoch when they were taken.
    private struct Part {
        var key: String
        var range: Range<Int>  // in the batch
        var epoch: Int
    }

    /// The lane's next entries, topped up to the batch size with the entries of other lanes that are idle and due
    /// (each lane's share is a prefix of it, in order). When every device has one entry at a time (a steady stream
    /// over many devices) a request still carries a batch, not one notification.
    private func nextBatch(_ key: String) -> (batch: [OutboxEntry], parts: [Part]) {
        var batch: [OutboxEntry] = []
        var parts: [Part] = []
        func take(_ lane: String) {
            guard let queue = lanes[lane] else { return }
            let skip = inFlight[lane, default: 0]
            let end = min(queue.count, skip + configured.batchSize - batch.count)
            guard end > skip else { return }
            parts.append(Part(key: lane, range: batch.count..<(batch.count + end - skip), epoch: epochs[lane, default: 0]))
            batch.append(contentsOf: queue[skip..<end])
        }
        take(key)
        guard configured.concurrency > 1, batch.count < configured.batchSize else { return (batch, parts) }
        let now = ContinuousClock.now
        for (other, queue) in lanes where batch.count < configured.batchSize {
            guard other != key, queue.count > inFlight[other, default: 0], !running.contains(other), !joined.contains(other)
            else { continue }
            if let due = retryAt[other], due > now { continue }
            joined.insert(other)
            take(other)
        }
        return (batch, parts)
    }

    /// When each lane's last delivery began, for `ConfiguredSink.linger`.
    private var deliveryStarts: [String: ContinuousClock.Instant] = [:]
    /// The lanes waiting out a linger: cancelled when their batch fills up, or at shutdown.
    private var lingerWaits: [String: Task<Void, any Error>] = [:]

    private func runLane(_ key: String) async {
        // A batch that waited out its linger goes even when shutdown began meanwhile: the wait ends early then,
        // and the lane delivers what it holds, as a batch in flight at shutdown would.
        var lingered = false
        lane: while !stopping || lingered, let queue = lanes[key], queue.count > inFlight[key, default: 0] {
            if !lingered, configured.linger > .zero, queue.count - inFlight[key, default: 0] < configured.batchSize,
               let last = deliveryStarts[key], last + configured.linger > .now {
                // Entries read meanwhile (`refill` runs between the actor's awaits) join the batch.
                let until = last + configured.linger
                let wait = Task { try await Task.sleep(until: until, clock: .continuous) }
                lingerWaits[key] = wait
                _ = await wait.result
                lingerWaits[key] = nil
                deliveryStarts[key] = nil
                lingered = true
                continue lane
            }
            lingered = false
            if configured.linger > .zero {
                let now = ContinuousClock.now
                // Per-device lanes come and go: starts older than the linger say nothing any more.
                if deliveryStarts.count > 4 * configured.concurrency {
                    deliveryStarts = deliveryStarts.filter { $0.value + configured.linger > now }
                }
                deliveryStarts[key] = now
            }
            let (batch, parts) = nextBatch(key)
            defer { for part in parts where part.key != key { joined.remove(part.key) } }
            do {
                try await sink.deliver(batch)
                // A commit failed meanwhile: what a lane read is delivered again, from its first entry not stored.
                for part in parts where epochs[part.key, default: 0] == part.epoch {
                    settleLater(part.key, Array(batch[part.range]), dead: nil)
                }
                guard epochs[key, default: 0] == parts[0].epoch else { break lane }
            } catch {
                let outcome = FailedDelivery(error, batchCount: batch.count)
                if outcome.delivered > 0 {
                    guard await settle(parts, of: batch, in: 0..<outcome.delivered, dead: nil) else { break lane }
                }
                guard outcome.delivered < batch.count else { continue }
                switch outcome.rest {
                case .retry(let reason, let after):
                    let first = batch[outcome.delivered]
                    metrics.retryableFailures.increment()
                    let n = (attempts[key] ?? 0) + 1
                    let delay = retry.delay(attempt: n, retryAfter: after)
                    // Every lane with entries not taken waits: a peer that failed them may fail them again.
                    for part in parts where part.range.upperBound > outcome.delivered {
                        attempts[part.key] = (attempts[part.key] ?? 0) + 1
                        retryAt[part.key] = .now + delay
                    }
                    metrics.retries.increment()
                    // Loud on the first failure, then now and then: a peer that is down fails every lane.
                    if n == 1 || n % 10 == 0 {
                        logger.warning("delivery failed; retrying", metadata: [
                            "device": "\(first.device)", "deliveryId": "\(first.deliveryId)", "attempt": "\(n)",
                            "retryIn": "\(delay)", "reason": "\(reason)"])
                    }
                    wake(after: delay)
                    running.remove(key)
                    return
                case .refuse(let reason, let status, let response):
                    let refused = batch[outcome.refused]
                    metrics.permanentFailures.increment()
                    logger.error("sink refused entries for good: dead-lettered", metadata: [
                        "device": "\(refused.first!.device)", "deliveryIds": "\(refused.map(\.deliveryId))",
                        "status": "\(status.map(String.init) ?? "-")", "reason": "\(reason)"])
                    guard await settle(parts, of: batch, in: outcome.refused, dead: (status, response)) else { break lane }
                    // Entries after the refused ones (a partial refusal) go in the lane's next batch.
                }
            }
        }
        running.remove(key)
        if lanes[key]?.isEmpty ?? true { lanes[key] = nil }
        wake()
    }

    /// Stores the outcome of the batch's entries in `range`, lane by lane (each lane's share is a prefix of what
    /// it has not settled); false when a store refused, or a lane's entries were taken back by a failed commit.
    private func settle(_ parts: [Part], of batch: [OutboxEntry], in range: Range<Int>,
                        dead: (status: Int?, response: String)?) async -> Bool {
        var stored = true
        for part in parts {
            let share = part.range.clamped(to: range)
            guard !share.isEmpty, epochs[part.key, default: 0] == part.epoch else { continue }
            if !(await settle(part.key, Array(batch[share]), dead: dead)) { stored = false }
        }
        return stored
    }

    /// A batch's outcome waiting to be stored, and (for a lane that waits) its continuation.
    private struct Settlement {
        var key: String
        var batch: [OutboxEntry]
        var dead: (status: Int?, response: String)?
        var attempts: Int
        var epoch: Int
        var done: CheckedContinuation<Bool, Never>?
    }

    private var pendingSettlements: [Settlement] = []
    /// Acknowledgement commits that failed in a row (the store refused them).
    private var failedSettlements = 0
    private var committing = false

    /// Stores the batch's outcome, then drops it from memory; false (the lane stops and retries later) when the
    /// store refused: the entries will be delivered again. Outcomes that arrive while a commit is under way share
    /// the next one (group commit): one fsync acknowledges many lanes' batches.
    private func settle(_ key: String, _ batch: [OutboxEntry], dead: (status: Int?, response: String)?) async -> Bool {
        await withCheckedContinuation { done in enqueue(key, batch, dead: dead, done: done) }
    }

    /// Queues the batch's outcome for the next commit without waiting for it: the lane goes on with its next batch
    /// (a failed commit moves the lane's epoch on and its entries are delivered again).
    private func settleLater(_ key: String, _ batch: [OutboxEntry], dead: (status: Int?, response: String)?) {
        enqueue(key, batch, dead: dead, done: nil)
    }

    private func enqueue(_ key: String, _ batch: [OutboxEntry], dead: (status: Int?, response: String)?,
                         done: CheckedContinuation<Bool, Never>?) {
        inFlight[key, default: 0] += batch.count
        pendingSettlements.append(Settlement(key: key, batch: batch, dead: dead, attempts: (attempts[key] ?? 0) + 1,
                                             epoch: epochs[key, default: 0], done: done))
        if !committing {
            committing = true
            Task { await self.commitSettlements() }
        }
    }

    private func commitSettlements() async {
        while !pendingSettlements.isEmpty {
            // Settlements made before their lane's commit failed are not applied: those entries go out again.
            let all = pendingSettlements
            pendingSettlements = []
            let items = all.filter { $0.epoch == epochs[$0.key, default: 0] }
            for stale in all where stale.epoch != epochs[stale.key, default: 0] { stale.done?.resume(returning: false) }
            guard !items.isEmpty else { continue }
            let outcomes = items.map { (batch: $0.batch, dead: $0.dead, attempts: $0.attempts) }
            // Everything read and no longer held once these are stored is settled: the cursor goes up to just
            // before the lowest sequence still held (each batch is a prefix of its lane).
            let settling = Dictionary(items.map { ($0.key, $0.batch.count) }, uniquingKeysWith: +)
            var lowest: Int64?
            for (key, queue) in lanes {
                let skip = settling[key] ?? 0
                if queue.count > skip { lowest = min(lowest ?? .max, queue[skip].sequence) }
            }
            let cursor = lowest.map { $0 - 1 } ?? readThrough ?? 0
            let result = await Self.store(outcomes, cursor: cursor, sink: sink.name, in: store)
            let now = Timestamp.wallClock()
            // The file refusing acknowledgements is no reason to deliver the same entries twice a second forever:
            // back off as for a failing sink, up to the longest retry wait.
            if case .failure = result { failedSettlements += 1 } else { failedSettlements = 0 }
            let backoff = retry.delay(attempt: failedSettlements, retryAfter: nil)
            for item in items {
                guard case .success = result else {
                    retryAt[item.key] = .now + backoff
                    if epochs[item.key, default: 0] == item.epoch {
                        epochs[item.key, default: 0] += 1
                        inFlight[item.key] = nil
                    }
                    item.done?.resume(returning: false)
                    continue
                }
                lanes[item.key]?.removeFirst(item.batch.count)
                inFlight[item.key, default: 0] -= item.batch.count
                if inFlight[item.key] == 0 { inFlight[item.key] = nil }
                if lanes[item.key]?.isEmpty == true && !running.contains(item.key) { lanes[item.key] = nil }
                queued -= item.batch.count
                attempts[item.key] = nil
                retryAt[item.key] = nil
                if item.dead != nil {
                    metrics.deadLetters.increment(by: item.batch.count)
                } else {
                    metrics.deliveries.increment(by: item.batch.count)
                    for e in item.batch {
                        metrics.latency.recordNanoseconds(max(0, now.microseconds - (e.enqueuedAt ?? now).microseconds) * 1000)
                    }
                }
                item.done?.resume(returning: true)
            }
            switch result {
            case .success:
                let settled = outbox.settle(sink: sink.name, through: cursor)
                if settled.released > 0 { pressure.refresh(from: outbox) }
                if settled.legacyDrained {
                    do { try store.clearLegacyOutbox() } catch {
                        logger.error("cannot empty the legacy outbox table; its settled rows are skipped at the next start", metadata: ["error": "\(error)"])
                    }
                }
            case .failure(let error):
                logger.error("cannot store acknowledgements; will deliver again", metadata: [
                    "error": "\(error)", "attempt": "\(failedSettlements)", "retryIn": "\(backoff)"])
                wake(after: backoff)
            }
        }
        committing = false
        // Lanes whose entries were all in flight start again; with room in the window, more is read.
        wake()
    }

    /// One transaction for many outcomes, off the actor so lanes can queue more meanwhile: the dead letters and
    /// the sink's new cursor.
    private nonisolated static func store(_ outcomes: [(batch: [OutboxEntry], dead: (status: Int?, response: String)?, attempts: Int)],
                                          cursor: Int64, sink: String, in store: any StateStore) async -> Result<Void, any Error> {
        var refused: [RefusedEntry] = []
        for o in outcomes {
            guard let dead = o.dead else { continue }
            for e in o.batch { refused.append(RefusedEntry(entry: e, status: dead.status, response: dead.response, attempts: o.attempts)) }
        }
        do {
            try await store.settle(sink: sink, through: cursor, refused: refused, at: .wallClock())
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    // MARK: Replays

    private func startReplays(_ group: inout DiscardingTaskGroup) {
        guard !replaying, !stopping else { return }
        if let due = replayRetryAt, due > .now { return }
        let requested = replayRequests()
        guard replaysMayWait || replaysChecked != requested else { return }
        replaysChecked = requested
        replaysMayWait = false
        replaying = true
        group.addTask { await self.runReplays() }
    }

    /// Delivers the dead letters whose replay was asked for, one at a time, outside the lanes (their device's
    /// later entries went on without them).
    private func runReplays() async {
        defer { replaying = false }
        let name = sink.name
        let page = 16
        guard let letters = try? store.deadLettersToReplay(sink: name, limit: page)
        else { replaysMayWait = true; return }
        guard !letters.isEmpty else { return }
        if letters.count == page { replaysMayWait = true }
        for letter in letters where !stopping {
            var entry = letter.entry
            entry.enqueuedAt = nil
            do {
                try await sink.deliver([entry])
                try? await store.deleteDeadLetter(id: letter.id)
                metrics.replays.increment()
                metrics.deliveries.increment()
                replayAttempts = 0
                logger.notice("dead letter replayed", metadata: ["id": "\(letter.id)", "deliveryId": "\(entry.deliveryId)"])
            } catch {
                let outcome = FailedDelivery(error, batchCount: 1)
                if outcome.delivered > 0 {
                    try? await store.deleteDeadLetter(id: letter.id)
                    metrics.replays.increment()
                    metrics.deliveries.increment()
                    continue
                }
                switch outcome.rest {
                case .retry(_, let after):
                    replayAttempts += 1
                    metrics.retries.increment()
                    let delay = retry.delay(attempt: replayAttempts, retryAfter: after)
                    replayRetryAt = .now + delay
                    replaysMayWait = true
                    wake(after: delay)
                    return
                case .refuse(let reason, let status, let response):
                    metrics.permanentFailures.increment()
                    try? await store.deadLetterRefusedAgain(id: letter.id, status: status, response: response, at: .wallClock())
                    logger.error("dead letter refused again", metadata: ["id": "\(letter.id)", "reason": "\(reason)"])
                }
            }
        }
        wake()
    }

    private nonisolated func wake(after delay: Duration) {
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            self?.wake()
        }
    }
}
