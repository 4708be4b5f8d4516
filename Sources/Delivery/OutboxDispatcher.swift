import Logging
import ServiceLifecycle
import Storage

/// Delivers the outbox to every configured sink at least once, each sink at its own pace with its own cursor (a
/// failing sink holds up no other), and keeps the back-pressure reading fresh. Runs as a service beside the HTTP
/// server; on graceful shutdown it stops taking new batches and returns once those in flight are settled.
public final class OutboxDispatcher: Service, Sendable {
    let store: any StateStore
    public let outbox: JournalOutbox
    let workers: [SinkWorker]
    let signal: OutboxSignal
    public let pressure: OutboxPressure
    let logger: Logger
    /// How often the outbox's extent (and with it the age bound) is re-read without a wake-up.
    let refreshInterval: Duration

    /// - Parameter outbox: the host's outbox, made for exactly these sinks' names.
    public init(store: any StateStore, outbox: JournalOutbox, sinks: [ConfiguredSink], signal: OutboxSignal,
                configuration: DeliveryConfiguration, logger: Logger, refreshInterval: Duration = .seconds(1)) {
        precondition(outbox.sinks == sinks.map(\.sink.name), "the outbox was made for other sinks")
        self.store = store
        self.outbox = outbox
        self.signal = signal
        self.logger = logger
        self.refreshInterval = refreshInterval
        let pressure = OutboxPressure(maximumEntries: configuration.maximumEntries, maximumAge: configuration.maximumAge,
                                      logger: logger)
        self.pressure = pressure
        workers = sinks.map {
            SinkWorker(configured: $0, store: store, outbox: outbox, retry: configuration.retry, window: configuration.window,
                       pressure: pressure, replayRequests: { signal.replayRequests }, logger: logger)
        }
        pressure.refresh(from: outbox)
    }

    /// After `run` has returned (shutdown): one more delivery pass over every sink, each batch tried once, so what
    /// the last batches fired leaves before the process does. True when every sink took everything.
    public func drain() async -> Bool {
        for w in workers { await w.configured.sink.shutdownStarted() }
        var complete = true
        for w in workers where await !w.flush() { complete = false }
        return complete
    }

    /// The configured sinks' names, in configuration order.
    public var sinkNames: [String] { workers.map(\.configured.sink.name) }

    public func run() async throws {
        let workers = workers, signal = signal, outbox = outbox, pressure = pressure, interval = refreshInterval
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for w in workers { group.addTask { await w.run() } }
                // Commits that fired notifications wake every sink.
                group.addTask {
                    for await _ in signal.stream {
                        pressure.refresh(from: outbox)
                        for w in workers { w.wake() }
                    }
                }
                // The age bound moves with time alone; a periodic wake-up also catches anything a lost signal missed.
                group.addTask {
                    while !Task.isShuttingDownGracefully {
                        do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) } } catch { break }
                        pressure.refresh(from: outbox)
                        for w in workers { w.wake() }
                    }
                    signal.finish()
                }
            }
        } onGracefulShutdown: {
            signal.finish()
            for w in workers { w.finish() }
            // Deliveries in flight to an unreachable sink fail now instead of holding the shutdown for their timeout.
            Task { for w in workers { await w.configured.sink.shutdownStarted() } }
        }
    }
}
