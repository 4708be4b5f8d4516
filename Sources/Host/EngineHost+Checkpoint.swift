import Synchronization
import Journal
import TriggerEngine

extension EngineHost {
    /// Journal records written since the newest checkpoint that changed something: clock ticks that fired nothing
    /// do not count, so an idle service does not rewrite its whole state every interval (a restart replays those
    /// ticks, a few bytes each).
    public var changesSinceCheckpoint: UInt64 { changesSinceCheckpointCount }

    /// Fixes and sightings journaled since the newest checkpoint: a restart replays about this many, so bounding it
    /// bounds the restart time (the replay runs at roughly a million fixes a second per core).
    public var inputsSinceCheckpoint: UInt64 { inputsSinceCheckpointCount }

    /// Bytes journaled since the newest checkpoint, and that checkpoint's size (0 before the first): a checkpoint
    /// taken for time alone is worth its writes only once the journal it spares a restart is as large.
    public var journalBytesSinceCheckpoint: Int { writer.bytesWritten.load(ordering: .relaxed) - bytesWrittenAtCheckpoint }
    public var newestCheckpointBytes: Int { lastCheckpointBytes }

    /// Takes a checkpoint of the whole state as of now and writes it, then frees the journal records no one needs:
    /// those before the older checkpoint kept (the fallback) whose notifications every sink settled. The state is encoded on
    /// the actor (a consistent cut between two records); the file is written and synced off it, while input goes
    /// on. Returns the position it covers, or nil when one is already being written.
    @discardableResult
    public func checkpoint() async throws -> UInt64? {
        guard !checkpointRunning else { return nil }
        checkpointRunning = true
        defer { checkpointRunning = false }
        let started = ContinuousClock.now
        let position = nextPosition
        let body = state.encodeCheckpoint()
        // The checkpoint holds the clock: a tick held back need not be journaled any more.
        heldTick = nil
        heldListening.removeAll()
        let changes = changesSinceCheckpointCount
        let inputs = inputsSinceCheckpointCount
        let bytesAtStart = writer.bytesWritten.load(ordering: .relaxed)
        let log = self.log
        // A checkpoint must never cover a record a crash could still take back.
        // Not an interval later (`JournalSync`): a checkpoint, like a shutdown, makes the journal durable now.
        try await writer.waitDurable(through: position, .syncedNow)
        try await Task.detached { () throws -> Void in try log.saveCheckpoint(body, position: position) }.value
        checkpointPositions.insert(position, at: 0)
        changesSinceCheckpointCount -= min(changes, changesSinceCheckpointCount)
        inputsSinceCheckpointCount -= min(inputs, inputsSinceCheckpointCount)
        bytesWrittenAtCheckpoint = bytesAtStart
        lastCheckpointBytes = body.count
        if checkpointPositions.count > 2 { checkpointPositions.removeLast(checkpointPositions.count - 2) }
        // The journal since the older of the two checkpoints stays (the fallback should the newest be damaged);
        // with only one checkpoint, all of it does.
        let fallback = checkpointPositions.count >= 2 ? checkpointPositions[checkpointPositions.count - 1] : 0
        let keepFrom = min(fallback, feeder.oldestPending ?? position, outbox.lowestPosition ?? position)
        try log.dropRecords(before: keepFrom)
        metrics.checkpoint.record(duration: ContinuousClock.now - started)
        metrics.checkpointBytes.record(body.count)
        logger.info("checkpoint written", metadata: [
            "position": "\(position)", "bytes": "\(body.count)", "devices": "\(engine.deviceCount)",
            "seconds": "\((ContinuousClock.now - started) / .seconds(1))"])
        return position
    }
}
