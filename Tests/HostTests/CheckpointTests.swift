import JSON
import Foundation
import GRDB
import Host
import EngineLog
import Journal
@testable import Storage
import Testing
import TestSupport
import TriggerEngine

/// Checkpoints: a restart starts from the newest and replays only what follows; covered segments go; a damaged
/// checkpoint refuses to start unless `recover`, which falls back to the older one; a database of the version
/// before the journal is read once.
@Suite struct CheckpointTests {
    static func feed(_ host: EngineHost, devices: Range<Int>, second: Int) async throws {
        let fixes = devices.flatMap { k in
            [HostFixture.fix("d\(k)", second, inside: false), HostFixture.fix("d\(k)", second + 10, inside: true)]
        }
        _ = try await host.process(fixes: fixes.enumerated().map { (line: $0.offset + 1, fix: $0.element) })
    }

    /// Settles every notification the outbox holds for the one test sink, as a delivery would; returns how many.
    static func settleAll(_ host: EngineHost) async -> Int {
        await host.feeder.feedPending()
        let held = host.outbox.all
        guard let last = held.last else { return 0 }
        host.outbox.settle(sink: HostFixture.sinks[0], through: last.sequence)
        return held.count
    }

    /// `--checkpoint-inputs`: the scheduler checkpoints once that many fixes piled up, long before its interval,
    /// so a restart replays at most about that many; a restart counts what it replayed towards the next one.
    @Test func theInputBoundTriggersCheckpointsAndBoundsWhatARestartReplays() async throws {
        let f = try HostFixture("input-bound")
        let log = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        let scheduler = CheckpointScheduler(host: host, interval: .seconds(3600), recordLimit: .max, inputLimit: 100, logger: f.logger)
        let running = Task { try await scheduler.run() }
        // 12 batches of 20 fixes (240 inputs): the bound of 100 is passed twice or more, the hour never.
        for b in 0..<12 {
            try await Self.feed(host, devices: (b * 10)..<(b * 10 + 10), second: b * 100)
            if b % 4 == 3 {
                // The scheduler looks every half second: wait until it has taken what is due.
                _ = await eventually(every: .milliseconds(50)) { await host.inputsSinceCheckpoint < 100 }
            }
        }
        running.cancel()
        _ = await running.result
        let pending = await host.inputsSinceCheckpoint
        #expect(pending < 100)
        _ = await Self.settleAll(host)
        log.close()

        let reopened = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let restarted = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        let checkpoint = try #require(restarted.restored.checkpoint)
        #expect(checkpoint > 1, "the checkpoint covers fixes, not only the request")
        #expect(restarted.restored.replayedInputs == Int(pending))
        #expect(restarted.restored.replayed * 20 == Int(pending))
        #expect(await restarted.inputsSinceCheckpoint == pending)
        #expect(restarted.restored.devices == 120)
        reopened.close()
    }

    @Test func restartReplaysOnlyWhatFollowsTheNewestCheckpointAndCoveredSegmentsGo() async throws {
        let f = try HostFixture("checkpoint")
        let log = try FileHostLog(directory: f.journalPath, segmentBytes: 4096, logger: f.logger)
        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        for b in 0..<30 { try await Self.feed(host, devices: (b * 10)..<(b * 10 + 10), second: b * 100) }
        // The sink settles everything so far: only the checkpoints hold the journal back.
        var delivered = await Self.settleAll(host)
        let first = try #require(try await host.checkpoint())
        for b in 30..<40 { try await Self.feed(host, devices: (b * 10)..<(b * 10 + 10), second: b * 100) }
        delivered += await Self.settleAll(host)
        let second = try #require(try await host.checkpoint())
        #expect(second > first)
        // The older checkpoint is the fallback: segments before it stay, earlier ones go.
        #expect(log.journal.firstPosition > 0 && log.journal.firstPosition <= first)
        for b in 40..<43 { try await Self.feed(host, devices: (b * 10)..<(b * 10 + 10), second: b * 100) }
        await host.feeder.feedPending()
        #expect(delivered == 400)
        #expect(HostFixture.outbox(host).count == 30)
        log.close()

        let reopened = try FileHostLog(directory: f.journalPath, segmentBytes: 4096, logger: f.logger)
        let restarted = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        #expect(restarted.restored.checkpoint == second)
        #expect(restarted.restored.replayed == 3)
        #expect(restarted.restored.devices == 430)
        #expect(restarted.restored.requests == 1)
        #expect(await restarted.status(ofDevice: "d5")?.memberships.map(\.identifier) == ["alex"])
        // The same fix again is a duplicate: the device's state came back exactly.
        let again = try await restarted.process(fixes: [(line: 1, fix: HostFixture.fix("d5", 10, inside: true))])
        #expect(again.map(\.reason) == [.duplicate])
    }

    @Test func lastPositionsAndRegionOccupantsComeBackFromTheCheckpointAlone() async throws {
        let f = try HostFixture("checkpoint-positions")
        var configuration = HostFixture.eventClock
        configuration.keepsLastPosition = true
        let log = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let host = try EngineHost(store: try f.store(), log: log, configuration: configuration, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        var accurate = HostFixture.fix("d1", 20, inside: true)
        accurate.horizontalAccuracy = 7.5
        _ = try await host.process(fixes: [(1, HostFixture.fix("d1", 0, inside: false)), (2, accurate),
                                           (3, HostFixture.fix("d2", 0, inside: false))])
        _ = try #require(try await host.checkpoint())
        log.close()

        let reopened = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let restarted = try EngineHost(store: try f.store(), log: reopened, configuration: configuration, sinks: HostFixture.sinks, logger: f.logger)
        #expect(restarted.restored.replayed == 0)
        #expect(await restarted.status(ofDevice: "d1")?.lastPosition == DevicePosition(latitude: 52.5219, longitude: 13.4132, horizontalAccuracy: 7.5))
        #expect(await restarted.status(ofDevice: "d2")?.lastPosition == DevicePosition(latitude: 52.53, longitude: 13.4132, horizontalAccuracy: nil))
        #expect(await restarted.occupants(ofRegion: "alex")?.map(\.device) == ["d1"])
        let near = await restarted.nearby(latitude: 52.5219, longitude: 13.4132, radius: 2000, limit: 10)
        #expect(near.map(\.device) == ["d1", "d2"])
        reopened.close()
    }

    @Test func aDamagedCheckpointRefusesToStartUnlessRecoverWhichUsesTheOlderOne() async throws {
        let f = try HostFixture("checkpoint-damage")
        let log = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        try await Self.feed(host, devices: 0..<5, second: 0)
        let older = try #require(try await host.checkpoint())
        try await Self.feed(host, devices: 5..<10, second: 100)
        let newer = try #require(try await host.checkpoint())
        try await Self.feed(host, devices: 10..<12, second: 200)
        log.close()

        // Flip one byte in the newest checkpoint's body.
        let files = try CheckpointFiles(directory: f.journalPath).list()
        #expect(files.map(\.position) == [newer, older])
        let handle = try #require(FileHandle(forUpdatingAtPath: files[0].path))
        try handle.seek(toOffset: 40)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: 40)
        handle.write(Data([byte ^ 0x5A]))
        try handle.close()

        let reopened = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let error = #expect(throws: RestoreError.self) {
            _ = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        }
        #expect(error?.reason.contains("checkpoint at journal position \(newer)") == true)
        #expect(error?.reason.contains("checksum mismatch") == true)

        let recovered = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, recover: true,
                                       logger: f.logger)
        #expect(recovered.restored.checkpoint == older)
        #expect(recovered.restored.skipped.count == 1)
        #expect(recovered.restored.devices == 12)
        #expect(recovered.restored.divergent == 0)
    }

    @Test func aDatabaseFromBeforeTheJournalIsReadOnceThenCheckpointed() async throws {
        let f = try HostFixture("legacy")
        // The per-batch version's tables, written as it wrote them.
        do {
            let engine = TriggerEngine(configuration: HostFixture.eventClock)
            let json = HostFixture.request("alex")
            try engine.add(RequestDecoder().decodeRequest(JSONParser.parse(json)))
            _ = engine.process(HostFixture.fix("old", 0, inside: false)) { _ in }
            _ = engine.process(HostFixture.fix("old", 10, inside: true)) { _ in }
            let store = try f.sqliteStore()
            try store.write { db in
                try RequestRepository().save(StoredRequest(identifier: "alex", json: json, state: engine.state(ofRequest: "alex")!), in: db)
                try DeviceStateRepository().save(engine.snapshot(ofDevice: "old")!, in: db)
                try EngineMetaRepository().save(engine.counters, in: db)
            }
        }
        let log = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let host = try EngineHost(store: try f.sqliteStore(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        #expect(host.restored.fromLegacyTables)
        #expect(await host.status(ofDevice: "old")?.memberships.map(\.identifier) == ["alex"])
        _ = try #require(try await host.checkpoint())
        try host.store.dropLegacyDeviceState()
        log.close()

        let reopened = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let restarted = try EngineHost(store: try f.sqliteStore(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        #expect(!restarted.restored.fromLegacyTables)
        #expect(restarted.restored.checkpoint == 0)
        #expect(await restarted.status(ofDevice: "old")?.memberships.map(\.identifier) == ["alex"])
    }
}

/// An idle service on the wall clock journals none of its ticks that changed nothing but the clock (the newest is
/// written ahead of the next record) and counts none as a change: no checkpoint is due from ticks alone.
@Suite struct IdleTickTests {
    @Test func ticksThatFireNothingAreHeldAndDoNotCallForACheckpoint() async throws {
        let f = try HostFixture("idle-ticks")
        let log = MemoryHostLog()
        let host = try EngineHost(store: try f.store(), log: log, configuration: TriggerEngine.Configuration(clock: .external), sinks: HostFixture.sinks,
                                  logger: f.logger)
        for s in 0..<20 { try await host.advance(to: Timestamp(microseconds: Int64(1_760_000_000 + s) * 1_000_000)) }
        // Ticks are written behind the host's back (nobody waits for them): wait until they are in the log.
        // None is written on its own; a shutdown writes the newest.
        await host.drainWrites()
        #expect(log.nextPosition == 0)
        await host.writeHeldTick()
        await host.drainWrites()
        #expect(log.nextPosition == 1)
        #expect(await host.changesSinceCheckpoint == 0)
        _ = try await host.process(fixes: [(line: 1, fix: HostFixture.fix("d", 0, inside: true))])
        #expect(await host.changesSinceCheckpoint == 1)
        let restarted = try EngineHost(store: try f.store(), log: log, configuration: TriggerEngine.Configuration(clock: .external), sinks: HostFixture.sinks,
                                       logger: f.logger)
        #expect(restarted.restored.replayed == 2)
        #expect(await restarted.changesSinceCheckpoint == 2)
    }
}
