import Logging
import Sinks
import Storage
import TriggerEngine

/// Dead letters whose replay was asked for: delivered one at a time, outside the lanes.
extension SinkWorker {
    func startReplays(_ group: inout DiscardingTaskGroup) {
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
    func runReplays() async {
        defer { replaying = false }
        let name = sink.name
        let page = 16
        guard let letters = try? store.deadLettersToReplay(sink: name, limit: page)
        else { replaysMayWait = true; return }
        guard !letters.isEmpty else { return }
        if letters.count == page { replaysMayWait = true }
        for letter in letters where !stopping {
            var entry = OutboxEntry(letter.entry)
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
}
