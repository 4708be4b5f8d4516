import Journal
import Delivery
import Logging
import ServiceLifecycle
import Storage
import Synchronization
import TriggerEngine

/// Copies the notifications the journal holds into the outbox table the sinks deliver from, in large
/// transactions and off the request path. Each transaction also records the journal position it reached, so a
/// restart re-feeds only what came after (and the outbox skips a deliveryId it already has).
///
/// A notification is fed only once its journal record is durable: the outbox never holds what a crash could
/// take back.
public final class OutboxFeeder: Service, Sendable {
    private struct Pending {
        var records: [(position: UInt64, notifications: [RecordedNotification])] = []
        var count = 0
    }

    /// Notifications per transaction, at most (whole records).
    static let batchLimit = 20_000

    private let pending = Mutex(Pending())
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    let store: Store
    let log: any HostLog
    let signal: OutboxSignal
    let logger: Logger
    let metrics = HostMetrics()

    init(store: Store, log: any HostLog, signal: OutboxSignal, logger: Logger) {
        self.store = store
        self.log = log
        self.signal = signal
        self.logger = logger
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues the notifications of the record at `position` (called in journal order).
    func enqueue(position: UInt64, _ notifications: [RecordedNotification]) {
        guard !notifications.isEmpty else { return }
        let backlog = pending.withLock { p in
            p.records.append((position, notifications))
            p.count += notifications.count
            return p.count
        }
        metrics.feedBacklog.record(backlog)
        wakeContinuation.yield()
    }

    /// Notifications waiting for the outbox.
    public var backlog: Int { pending.withLock { $0.count } }

    /// The position of the oldest record whose notifications are not in the outbox yet.
    var oldestPending: UInt64? { pending.withLock { $0.records.first?.position } }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in self.wake {
                await self.feedPending()
                if Task.isCancelled { return }
            }
        }
    }

    /// Feeds everything queued, retrying a failing store with backoff until it succeeds or the task is cancelled.
    /// Returns true when nothing is left.
    @discardableResult
    public func feedPending() async -> Bool {
        var delay = Duration.milliseconds(100)
        while true {
            let batch = pending.withLock { p -> [(position: UInt64, notifications: [RecordedNotification])] in
                var out: [(position: UInt64, notifications: [RecordedNotification])] = []
                var n = 0
                for r in p.records {
                    if n > 0 && n + r.notifications.count > Self.batchLimit { break }
                    out.append(r)
                    n += r.notifications.count
                }
                return out
            }
            guard let last = batch.last else { return true }
            let through = last.position + 1
            do {
                try await log.waitDurable(through: through)
            } catch {
                // The journal could not make them durable: they were never acknowledged, and a restart replays
                // only what is on disk. Nothing to feed.
                logger.error("outbox feed stopped: the journal failed", metadata: ["error": "\(error)"])
                return false
            }
            let entries = batch.flatMap { r in
                r.notifications.map { Store.OutboxFeedEntry(deliveryId: $0.deliveryId, identifier: $0.identifier, device: $0.device,
                                                            json: $0.json, firedAt: $0.firedAt) }
            }
            do {
                try store.feedOutbox(entries, through: through)
            } catch {
                logger.error("cannot write the outbox; retrying", metadata: ["error": "\(error)", "retryIn": "\(delay)"])
                do { try await Task.sleep(for: delay) } catch { return false }
                delay = min(delay * 2, .seconds(5))
                continue
            }
            delay = .milliseconds(100)
            let backlog = pending.withLock { p in
                p.records.removeFirst(batch.count)
                p.count -= entries.count
                return p.count
            }
            metrics.feedBacklog.record(backlog)
            signal.notify()
        }
    }

    func finish() { wakeContinuation.finish() }
}
