import Delivery
import Foundation
import Host
import JSON
import Journal
import Sinks
import Storage
import Testing
import TriggerEngine

/// Issue 43's cases 2 and 3 through the host: checkpoints keep the journal they may need, and a journal that lost
/// records a sink cursor names is refused, or recovered past that cursor so new notifications are delivered.
@Suite struct RestoreIntegrityTests {
    static func damage(_ path: String, at offset: UInt64) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: offset)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: offset)
        handle.write(Data([byte ^ 0x5A]))
        try handle.close()
    }

    /// A run whose notifications the test sink settled, its cursor stored as a delivery stores it; returns the last
    /// notification and the path of the newest segment (the log closed).
    static func settledRun(_ f: HostFixture) async throws -> (last: OutboxEntry, segment: String) {
        let log = try FileHostLog(directory: f.journalPath, preallocate: false, logger: f.logger)
        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        for b in 0..<4 { try await CheckpointTests.feed(host, devices: (b * 10)..<(b * 10 + 10), second: b * 100) }
        await host.feeder.feedPending()
        let last = try #require(host.outbox.all.last)
        try host.store.registerSinks([HostFixture.sinks[0]: last.sequence])
        log.close()
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: f.journalPath).filter { $0.hasSuffix(".journal") }.sorted().last)
        return (last, f.journalPath + "/" + segment)
    }

    /// The third case: the first checkpoint used to drop every segment before it, so with that one
    /// checkpoint damaged even `--recover` could not start.
    @Test func case3TheOnlyCheckpointKeepsTheJournalAndRecoverReplaysItWhole() async throws {
        let f = try HostFixture("only-checkpoint")
        let log = try FileHostLog(directory: f.journalPath, segmentBytes: 4096, logger: f.logger)
        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        for b in 0..<20 { try await CheckpointTests.feed(host, devices: (b * 10)..<(b * 10 + 10), second: b * 100) }
        _ = await CheckpointTests.settleAll(host)
        let only = try #require(try await host.checkpoint())
        #expect(log.journal.firstPosition == 0, "no older checkpoint: the journal before this one is the only fallback")
        try await CheckpointTests.feed(host, devices: 200..<205, second: 3000)
        log.close()

        let files = try CheckpointFiles(directory: f.journalPath).list()
        #expect(files.map(\.position) == [only])
        try Self.damage(files[0].path, at: 40)
        let reopened = try FileHostLog(directory: f.journalPath, segmentBytes: 4096, logger: f.logger)
        #expect(throws: RestoreError.self) {
            _ = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        }
        let recovered = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks,
                                       recover: true, logger: f.logger)
        #expect(recovered.restored.checkpoint == nil)
        #expect(recovered.restored.devices == 205)
        #expect(recovered.restored.divergent == 0)
        #expect(recovered.restored.skipped.count == 1)
        reopened.close()
    }

    /// Records lost after a sink settled them: the host refuses, naming the sink (the journal alone could not
    /// know: here its mark went with the records).
    @Test func case2AJournalEndingBeforeASinkCursorIsRefusedByTheRestore() async throws {
        let f = try HostFixture("cursor-past-end")
        let (_, segment) = try await Self.settledRun(f)
        #expect(truncate(segment, 16) == 0)
        #expect(unlink(f.journalPath + "/acknowledged.mark") == 0)
        let reopened = try FileHostLog(directory: f.journalPath, preallocate: false, logger: f.logger)
        let error = #expect(throws: RestoreError.self) {
            _ = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        }
        #expect(error?.reason.contains("the sink \(HostFixture.sinks[0]) settled record") == true)
    }

    /// The second case: after `--recover`, new records used to reuse positions at or below the sink's
    /// cursor, so their notifications were never delivered. The journal told the cursor (as `serve` tells it)
    /// starts past it.
    @Test func case2ARecoveredJournalGoesOnPastTheSinkCursorAndNewNotificationsAreHeld() async throws {
        let f = try HostFixture("recover-past-cursor")
        let (last, segment) = try await Self.settledRun(f)
        let settled = try #require(JournalOutbox.position(of: last.sequence))
        #expect(truncate(segment, 16 + 30) == 0)
        let knownEnd = (position: settled + 1, source: "the sink cursor")
        #expect(throws: JournalError.self) {
            _ = try FileHostLog(directory: f.journalPath, preallocate: false, knownEnd: knownEnd, logger: f.logger)
        }
        let recoveredLog = try FileHostLog(directory: f.journalPath, recover: true, preallocate: false, knownEnd: knownEnd, logger: f.logger)
        #expect(recoveredLog.nextPosition > settled)
        let recovered = try EngineHost(store: try f.store(), log: recoveredLog, configuration: HostFixture.eventClock, sinks: HostFixture.sinks,
                                       recover: true, logger: f.logger)
        #expect(recovered.restored.skippedRecords > 0)
        // The request was in the lost records: register it again, then new devices enter.
        _ = try await recovered.add(try JSONParser.parse(HostFixture.request("alex")))
        try await CheckpointTests.feed(recovered, devices: 100..<110, second: 1000)
        await recovered.feeder.feedPending()
        #expect(recovered.outbox.all.filter { $0.sequence > last.sequence }.count == 10)
        recoveredLog.close()
    }
}
