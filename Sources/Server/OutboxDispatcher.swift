import Logging
import ServiceLifecycle
import Storage

/// Delivers the outbox to every configured sink, in sequence order, at least once: an entry is acknowledged (its
/// sink's cursor moved past it) only after the sink took it, so a crash in between delivers it again — consumers
/// deduplicate by `deliveryId`. A failing sink is retried every `retryInterval` without holding up the others.
final class OutboxDispatcher: Service, Sendable {
    let store: Store
    let sinks: [NDJSONSink]
    let signal: OutboxSignal
    let logger: Logger
    let metrics = ServerMetrics()
    let batchSize = 256
    let retryInterval: Duration

    init(store: Store, sinks: [NDJSONSink], signal: OutboxSignal, logger: Logger, retryInterval: Duration = .seconds(1)) {
        self.store = store
        self.sinks = sinks
        self.signal = signal
        self.logger = logger
        self.retryInterval = retryInterval
    }

    func run() async throws {
        // Whatever a previous run left undelivered goes first.
        if await !drain() { scheduleRetry() }
        for await _ in signal.stream.cancelOnGracefulShutdown() {
            if await !drain() { scheduleRetry() }
        }
    }

    private func scheduleRetry() {
        let signal = signal, interval = retryInterval
        Task {
            try? await Task.sleep(for: interval)
            signal.notify()
        }
    }

    /// Delivers everything pending to every sink; false if some sink failed.
    func drain() async -> Bool {
        var ok = true
        for sink in sinks {
            do {
                while true {
                    let entries = try store.read { db in
                        try OutboxRepository().entries(after: try OutboxRepository().cursor(sink: sink.name, in: db),
                                                       limit: batchSize, in: db)
                    }
                    guard let last = entries.last else { break }
                    try sink.deliver(entries.map(\.json))
                    try store.write { db in try OutboxRepository().acknowledge(sink: sink.name, through: last.sequence, in: db) }
                    metrics.delivered.increment(by: entries.count)
                    await Task.yield()
                }
            } catch {
                ok = false
                logger.error("outbox delivery failed; will retry", metadata: ["sink": "\(sink.name)", "error": "\(error)"])
            }
        }
        updateDepth()
        return ok
    }

    /// The backlog of the slowest sink.
    private func updateDepth() {
        let depth = (try? store.read { db in try sinks.map { try OutboxRepository().depth(sink: $0.name, in: db) }.max() ?? 0 }) ?? 0
        metrics.outboxDepth.record(depth)
    }
}
