import JSON
import Foundation
import Delivery
import Host
import Journal
import Logging
@testable import Storage
import Testing
import TriggerEngine

/// The sinks deliver from the journal: what a restart holds for them is exactly what their stored cursors have not
/// passed, read again from the journal (same deliveryIds, same bytes), and checkpoints keep the records it needs.
@Suite struct JournalDeliveryTests {
    @Test func aRestartHoldsExactlyWhatEachSinkHasNotSettled() async throws {
        let f = try HostFixture("journal-delivery")
        let log = try FileHostLog(directory: f.journalPath, segmentBytes: 4096, logger: f.logger)
        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: ["a", "b"], logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        for b in 0..<20 { try await CheckpointTests.feed(host, devices: (b * 10)..<(b * 10 + 10), second: b * 100) }
        await host.feeder.feedPending()
        let held = host.outbox.all
        #expect(held.count == 200)
        #expect(held.map(\.sequence) == held.map(\.sequence).sorted())
        // As a sink worker settles: the cursor is stored, then the outbox moves on.
        try await host.store.settle(sink: "a", through: held[199].sequence, refused: [], at: .wallClock())
        try await host.store.settle(sink: "b", through: held[49].sequence, refused: [], at: .wallClock())
        #expect(host.outbox.settle(sink: "a", through: held[199].sequence).released == 0, "b still needs them all")
        #expect(host.outbox.settle(sink: "b", through: held[49].sequence).released == 50)
        for b in 20..<25 { try await CheckpointTests.feed(host, devices: (b * 10)..<(b * 10 + 10), second: b * 100) }
        try await host.checkpoint()
        try await host.checkpoint()
        // Both checkpoints are past b's cursor: only the outbox holds the journal back.
        let needed = try #require(JournalOutbox.position(of: held[50].sequence))
        #expect(log.journal.firstPosition > 0 && log.journal.firstPosition <= needed)
        await host.feeder.feedPending()
        let before = host.outbox.all
        #expect(before.count == 200)
        log.close()

        let reopened = try FileHostLog(directory: f.journalPath, segmentBytes: 4096, logger: f.logger)
        let restarted = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: ["a", "b", "c"],
                                       logger: f.logger)
        await restarted.feeder.feedPending()
        let after = restarted.outbox.all
        #expect(after.map(\.deliveryId) == before.map(\.deliveryId))
        #expect(after.map(\.json) == before.map(\.json))
        #expect(after.map(\.sequence) == before.map(\.sequence))
        #expect(restarted.outbox.depth(of: "a") == 50, "a settled the first 200, not the 50 fired since")
        #expect(restarted.outbox.depth(of: "b") == 200)
        // A sink added since starts at what the outbox still holds.
        #expect(restarted.outbox.depth(of: "c") == 200)
        reopened.close()

        // Without sinks nothing is held or read again.
        let bare = try EngineHost(store: try f.store(), log: try FileHostLog(directory: f.journalPath, segmentBytes: 4096, logger: f.logger),
                                  configuration: HostFixture.eventClock, logger: f.logger)
        #expect(bare.restored.refed == 0)
        #expect(bare.outbox.all.isEmpty)
    }

    /// Each sink's start is stored when it is first configured: one that settled nothing before a crash still gets
    /// everything after it, even though another sink settled it all; a sink added to a service that had none
    /// starts at the journal's end.
    @Test func aSinkThatSettledNothingIsNotTakenForANewOne() async throws {
        let f = try HostFixture("journal-delivery-register")
        let log = MemoryHostLog()
        // Notifications journaled while no sink was configured: no one will ever be owed them.
        let bare = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, logger: f.logger)
        _ = try await bare.add(try JSONParser.parse(HostFixture.request("alex")))
        try await CheckpointTests.feed(bare, devices: 0..<5, second: 0)
        #expect(try bare.store.sinkCursors().isEmpty)

        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: ["a", "b"], logger: f.logger)
        #expect(try host.store.sinkCursors() == ["a": JournalOutbox.cursor(before: log.nextPosition),
                                                 "b": JournalOutbox.cursor(before: log.nextPosition)])
        try await CheckpointTests.feed(host, devices: 5..<15, second: 100)
        await host.feeder.feedPending()
        let held = host.outbox.all
        #expect(held.count == 10, "only what fired since the sinks were configured")
        try await host.store.settle(sink: "a", through: held[9].sequence, refused: [], at: .wallClock())
        host.outbox.settle(sink: "a", through: held[9].sequence)

        let restarted = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: ["a", "b"], logger: f.logger)
        await restarted.feeder.feedPending()
        #expect(restarted.outbox.depth(of: "a") == 0)
        #expect(restarted.outbox.depth(of: "b") == 10)
        #expect(restarted.outbox.all.map(\.deliveryId) == held.map(\.deliveryId))
    }

    /// A file from the version that copied notifications into an SQLite outbox table: its unsettled rows are
    /// delivered first, then the journal's, and the table is emptied once every sink passed them.
    @Test func rowsOfALegacyOutboxTableAreDeliveredFirst() async throws {
        let f = try HostFixture("journal-delivery-legacy")
        let store = try f.sqliteStore()
        // Three notifications as the old version stored them, the first settled by the sink.
        let engine = TriggerEngine()
        try engine.add(try RequestDecoder().decodeRequest(try JSONParser.parse(HostFixture.request("old"))))
        var fired: [FiredNotification] = []
        for k in 0..<3 {
            for fix in [HostFixture.fix("old\(k)", 0, inside: false), HostFixture.fix("old\(k)", 10, inside: true)] {
                engine.process(fix) { fired.append($0) }
            }
        }
        try #require(fired.count == 3)
        try store.write { db in
            for n in fired { try OutboxRepository().append(n, in: db) }
            try OutboxRepository().acknowledge(sink: "a", through: 1, in: db)
        }
        let host = try EngineHost(store: store, log: MemoryHostLog(), configuration: HostFixture.eventClock, sinks: ["a"], logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        try await CheckpointTests.feed(host, devices: 0..<2, second: 0)
        await host.feeder.feedPending()
        let held = host.outbox.all
        #expect(Array(held.map(\.deliveryId).prefix(2)) == [fired[1].deliveryId, fired[2].deliveryId])
        #expect(held.count == 4)
        #expect(held[2].sequence >= JournalOutbox.journalBase)
        #expect(!host.outbox.settle(sink: "a", through: held[0].sequence).legacyDrained)
        #expect(host.outbox.settle(sink: "a", through: held[1].sequence).legacyDrained)
    }
}
