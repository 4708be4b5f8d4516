import EngineLog
import Foundation
import Logging
import TestSupport
import Testing
import TriggerEngine

@testable import Storage

/// The SQLite file: schema, repositories, and what survives closing and reopening it.
@Suite struct StoreTests {
    let directory: URL
    var path: String { directory.appendingPathComponent("geotrigger.sqlite").path }

    init() throws {
        directory = try TestFolders.make("storage-tests")
    }

    func open() throws -> SQLiteStore { try SQLiteStore(path: path, logger: Logger(label: "test")) }

    @Test func newFileIsMigratedToV1InWALMode() throws {
        let store = try open()
        #expect(try store.appliedMigrations() == ["v1", "v2", "v3"])
        let mode = try store.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test func requestsSurviveReopening() throws {
        let state = TriggerEngine.RequestState(revision: 7, firings: 3, addedGeneration: 5, addedAt: Timestamp(microseconds: 42))
        do {
            let store = try open()
            try store.write { db in
                try RequestRepository().save(StoredRequest(identifier: "b", json: "{\"identifier\":\"b\"}", state: state), in: db)
                try RequestRepository().save(StoredRequest(identifier: "a", json: "{}", state: state), in: db)
                try RequestRepository().updateFirings(identifier: "b", firings: 4, in: db)
            }
        }
        let store = try open()
        let all = try store.read { db in try RequestRepository().all(in: db) }
        #expect(all.map(\.identifier) == ["a", "b"])
        #expect(all[1].state.firings == 4)
        #expect(all[1].state.revision == 7)
        #expect(all[1].state.addedAt == Timestamp(microseconds: 42))
        let page = try store.read { db in try RequestRepository().page(after: "a", offset: 0, limit: 10, in: db) }
        #expect(page.map(\.identifier) == ["b"])
        let removed = try store.write { db in try RequestRepository().delete(identifiers: ["a", "zz"], in: db) }
        #expect(removed == ["a"])
    }

    @Test func deviceSnapshotIsWrittenAndReadAsAWhole() throws {
        let snapshot = DeviceSnapshot(device: "truck-12", lastFix: Timestamp(microseconds: 1_000_000), lastSighting: nil,
                                      state: "{\"v\":\"1\"}", pairs: [.init(identifier: "r", revision: 2, state: "{}")])
        do {
            let store = try open()
            try store.write { db in try DeviceStateRepository().save(snapshot, in: db) }
            // Saving again replaces the pairs instead of adding to them.
            try store.write { db in try DeviceStateRepository().save(snapshot, in: db) }
        }
        let store = try open()
        #expect(try store.read { db in try DeviceStateRepository().find("truck-12", in: db) } == snapshot)
        try store.write { db in try DeviceStateRepository().delete(device: "truck-12", in: db) }
        #expect(try store.read { db in try DeviceStateRepository().count(in: db) } == 0)
    }

    @Test func legacyOutboxKeepsOrderIgnoresRepeatedDeliveryIdsAndCursorsNeverMoveBack() throws {
        let store = try open()
        let appended = try store.write { db in
            try ["r/d/1-1", "r/d/1-2", "r/d/1-1"].map { try OutboxRepository().append(Self.notification($0), in: db) }
        }
        #expect(appended == [true, true, false])
        let entries = try store.legacyOutbox()
        #expect(entries.map(\.deliveryId) == ["r/d/1-1", "r/d/1-2"])
        try store.write { db in try OutboxRepository().acknowledge(sink: "a", through: entries[0].sequence, in: db) }
        // A cursor never moves back.
        try store.write { db in try OutboxRepository().acknowledge(sink: "a", through: 0, in: db) }
        let reopened = try open()
        #expect(try reopened.sinkCursors() == ["a": entries[0].sequence])
        try reopened.clearLegacyOutbox()
        #expect(try reopened.legacyOutbox().isEmpty)
    }

    @Test func countersSurviveReopening() throws {
        let counters = TriggerEngine.Counters(generation: 9, revisionCounter: 4, now: Timestamp(microseconds: -5))
        do {
            let store = try open()
            #expect(try store.read { db in try EngineMetaRepository().load(in: db) } == nil)
            try store.write { db in try EngineMetaRepository().save(counters, in: db) }
        }
        #expect(try open().read { db in try EngineMetaRepository().load(in: db) } == counters)
    }

    static func notification(_ deliveryId: String) -> FiredNotification {
        var n = Fixture.entry()
        n.deliveryId = deliveryId
        return n
    }
}
