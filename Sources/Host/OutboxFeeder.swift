import Delivery
import EngineLog
import Journal
import Logging
import ServiceLifecycle
import Sinks
import Synchronization
import TriggerEngine

/// Hands the notifications of journal records to the outbox the sinks deliver from, once each record is durable:
/// a sink never sees what a crash could take back. Records are queued in journal order by the host as it writes
/// them, and moved to the outbox as fsyncs cover them, off the request path.
public final class OutboxFeeder: Service, Sendable {
    private struct Pending {
        var records: [(position: UInt64, notifications: [RecordedNotification], fixes: [LocationFix])] = []
        var count = 0
    }

    private let pending = Mutex(Pending())
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    let outbox: JournalOutbox
    let log: any HostLog
    let signal: OutboxSignal
    let logger: Logger
    let metrics = HostMetrics()
    /// The event streams' readers, published to with the outbox.
    public let stream: StreamHub

    public init(outbox: JournalOutbox, log: any HostLog, signal: OutboxSignal, logger: Logger) {
        self.outbox = outbox
        self.stream = StreamHub(start: log.nextPosition)
        self.log = log
        self.signal = signal
        self.logger = logger
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues the notifications of the record at `position` (called in journal order). `interest`: what the event
    /// streams open when it was written want (`StreamHub.admit`); `fixes` are queued only when they want positions.
    public func enqueue(position: UInt64, _ notifications: [RecordedNotification], fixes: [LocationFix] = [],
                        interest: StreamHub.Interest = .init(notifications: false, positions: false)) {
        let notify = !notifications.isEmpty && (!outbox.sinks.isEmpty || interest.notifications)
        let carry = interest.positions && !fixes.isEmpty
        guard notify || carry else { return }
        let backlog = pending.withLock { p in
            p.records.append((position, notifications, carry ? fixes : []))
            p.count += notifications.count
            return p.count
        }
        metrics.feedBacklog.record(backlog)
        wakeContinuation.yield()
    }

    /// Notifications journaled and not yet durable (so not yet in the outbox).
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

    /// Moves every queued record that is durable into the outbox. Returns true when nothing is left, false when
    /// the journal failed (those records were never acknowledged, and a restart reads only what is on disk).
    @discardableResult
    public func feedPending() async -> Bool {
        while true {
            guard let last = pending.withLock({ $0.records.last?.position }) else { return true }
            do {
                // A shutdown cancels the feeder: with a sync interval, the fsync is then made at once rather than
                // waited for (the wait cannot be cancelled; the journal answers it once durable).
                let log = self.log
                try await withTaskCancellationHandler {
                    try await log.waitDurable(through: last + 1)
                } onCancel: {
                    log.whenDurable(through: last + 1, .syncedNow) { _ in }
                }
            } catch {
                logger.error("outbox feed stopped: the journal failed", metadata: ["error": "\(error)"])
                return false
            }
            let now = Timestamp.wallClock()
            let batch = pending.withLock { p in
                let taken = p.records.prefix { $0.position <= last }
                p.records.removeFirst(taken.count)
                p.count -= taken.reduce(0) { $0 + $1.notifications.count }
                return Array(taken)
            }
            var entries: [OutboxEntry] = []
            entries.reserveCapacity(batch.reduce(0) { $0 + $1.notifications.count })
            for (position, notifications, _) in batch {
                for (i, n) in notifications.enumerated() {
                    entries.append(OutboxEntry(sequence: JournalOutbox.sequence(position: position, index: i), deliveryId: n.deliveryId,
                                               identifier: n.identifier, device: n.device, json: n.json, createdAt: n.firedAt,
                                               enqueuedAt: now))
                }
            }
            outbox.append(entries)
            metrics.feedBacklog.record(backlog)
            signal.notify()
            if stream.hasReaders {
                stream.publish(batch.map { StreamRecord(position: $0.position, notifications: $0.notifications, fixes: $0.fixes) }, through: last + 1)
            }
        }
    }

    func finish() { wakeContinuation.finish() }
}
