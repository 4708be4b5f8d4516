import Host
import Logging
import ServiceLifecycle
import TriggerEngine

/// Live mode's clock: moves the engine to wall time every `interval`, so a dwell or beacon exit fires when it is
/// due, not when the next input happens to arrive.
struct ClockTicker: Service {
    let host: EngineHost
    let logger: Logger
    var interval: Duration = .seconds(1)

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await host.advance(to: .wallClock())
            } catch {
                logger.error("clock tick failed", metadata: ["error": "\(error)"])
            }
            // Shutdown (or cancellation) interrupts the sleep: the ticker then stops.
            do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) } } catch { return }
        }
    }
}
