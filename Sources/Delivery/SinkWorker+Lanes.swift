import Logging
import Sinks
import Storage
import TriggerEngine

/// The lanes: batches per device (or one lane), delivered in order, settled in order, with their retries and dead
/// letters, and the transaction that stores a sink's new cursor.
extension SinkWorker {
    func startLanes(_ group: inout DiscardingTaskGroup) {
        let now = ContinuousClock.now
        for (key, entries) in lanes where running.count < configured.concurrency {
            guard entries.count > inFlight[key, default: 0], !running.contains(key), !joined.contains(key) else { continue }
            if let due = retryAt[key], due > now { continue }
            running.insert(key)
            group.addTask { await self.runLane(key) }
        }
    }


    /// One lane's share of a batch: which entries of the lane, and its epoch when they were taken.
    struct Part {
        var key: String
        var range: Range<Int>  // in the batch
        var epoch: Int
    }

    /// The lane's next entries, topped up to the batch size with the entries of other lanes that are idle and due
    /// (each lane's share is a prefix of it, in order). When every device has one entry at a time (a steady stream
    /// over many devices) a request still carries a batch, not one notification.
    func nextBatch(_ key: String) -> (batch: [OutboxEntry], parts: [Part]) {
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


    func runLane(_ key: String) async {
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
    func settle(_ parts: [Part], of batch: [OutboxEntry], in range: Range<Int>,
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
    struct Settlement {
        var key: String
        var batch: [OutboxEntry]
        var dead: (status: Int?, response: String)?
        var attempts: Int
        var epoch: Int
        var done: CheckedContinuation<Bool, Never>?
    }


    /// Stores the batch's outcome, then drops it from memory; false (the lane stops and retries later) when the
    /// store refused: the entries will be delivered again. Outcomes that arrive while a commit is under way share
    /// the next one (group commit): one fsync acknowledges many lanes' batches.
    func settle(_ key: String, _ batch: [OutboxEntry], dead: (status: Int?, response: String)?) async -> Bool {
        await withCheckedContinuation { done in enqueue(key, batch, dead: dead, done: done) }
    }

    /// Queues the batch's outcome for the next commit without waiting for it: the lane goes on with its next batch
    /// (a failed commit moves the lane's epoch on and its entries are delivered again).
    func settleLater(_ key: String, _ batch: [OutboxEntry], dead: (status: Int?, response: String)?) {
        enqueue(key, batch, dead: dead, done: nil)
    }

    func enqueue(_ key: String, _ batch: [OutboxEntry], dead: (status: Int?, response: String)?,
                         done: CheckedContinuation<Bool, Never>?) {
        inFlight[key, default: 0] += batch.count
        pendingSettlements.append(Settlement(key: key, batch: batch, dead: dead, attempts: (attempts[key] ?? 0) + 1,
                                             epoch: epochs[key, default: 0], done: done))
        if !committing {
            committing = true
            Task { await self.commitSettlements() }
        }
    }

    func commitSettlements() async {
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
    nonisolated static func store(_ outcomes: [(batch: [OutboxEntry], dead: (status: Int?, response: String)?, attempts: Int)],
                                          cursor: Int64, sink: String, in store: any StateStore) async -> Result<Void, any Error> {
        var refused: [RefusedEntry] = []
        for o in outcomes {
            guard let dead = o.dead else { continue }
            for e in o.batch { refused.append(RefusedEntry(entry: StoredNotification(e), status: dead.status, response: dead.response, attempts: o.attempts)) }
        }
        do {
            try await store.settle(sink: sink, through: cursor, refused: refused, at: .wallClock())
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
