import Logging
import ServiceLifecycle

/// Takes checkpoints in the background: once `recordLimit` journal records or `inputLimit` fixes and sightings piled
/// up since the last (a restart replays what came after the newest checkpoint, so `inputLimit` bounds the restart
/// time under any load), or every `interval` while the journal written since is at least as large as the newest
/// checkpoint: a trickle of fixes against a large region set (a gateway's) does not rewrite the whole state every
/// interval, so checkpoints never write more than the journal does. Nothing when nothing changed.
public struct CheckpointScheduler: Service {
    let host: EngineHost
    let interval: Duration
    let recordLimit: UInt64
    let inputLimit: UInt64
    let logger: Logger

    public init(host: EngineHost, interval: Duration, recordLimit: UInt64, inputLimit: UInt64 = .max, logger: Logger) {
        self.host = host
        self.interval = interval
        self.recordLimit = recordLimit
        self.inputLimit = inputLimit
        self.logger = logger
    }

    public func run() async throws {
        var last = ContinuousClock.now
        // Restored from the tables of a version before the journal: make a checkpoint hold it at once.
        if host.restored.fromLegacyTables { await take() }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: min(.milliseconds(500), interval)) } } catch { return }
            let (pending, inputs) = await (host.changesSinceCheckpoint, host.inputsSinceCheckpoint)
            guard pending > 0 else { continue }
            let worthRewriting = await host.journalBytesSinceCheckpoint >= host.newestCheckpointBytes
            if pending >= recordLimit || inputs >= inputLimit || (ContinuousClock.now - last >= interval && worthRewriting) {
                await take()
                last = ContinuousClock.now
            }
        }
    }

    private func take() async {
        do {
            try await host.checkpoint()
            if host.restored.fromLegacyTables { try host.store.dropLegacyDeviceState() }
        } catch {
            logger.error("checkpoint failed; the journal is kept until one succeeds", metadata: ["error": "\(error)"])
        }
    }
}
