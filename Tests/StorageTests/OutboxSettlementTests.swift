import Foundation
import GRDB
import Logging
import Testing
import TriggerEngine

@testable import Storage

/// Per-sink settlement out of sequence order: the cursor moves over the contiguous settled prefix only, entries
/// every sink settled leave the outbox, dead letters keep what was refused.
@Suite struct OutboxSettlementTests {
    let store: Store

    init() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        store = try Store(path: dir.appendingPathComponent("g.sqlite").path, logger: Logger(label: "test"))
        try store.write { db in
            for k in 1...6 {
                var n = StoreTests.notification("r/d\(k % 2)/1-\(k)")
                n.device = "d\(k % 2)"
                try OutboxRepository().append(n, in: db)
            }
        }
    }

    func settle(_ sink: String, _ sequences: [Int64]) throws -> Int64 {
        try store.write { db in try OutboxRepository().settle(sink: sink, sequences: sequences, in: db) }
    }

    @Test func cursorMovesOverTheContiguousSettledPrefix() throws {
        #expect(try settle("a", [2, 4]) == 0)
        #expect(try store.read { db in try OutboxRepository().depth(sink: "a", in: db) } == 4)
        let open = try store.read { db in try OutboxRepository().unsettled(sink: "a", after: 0, limit: 10, in: db) }
        #expect(open.map(\.sequence) == [1, 3, 5, 6])
        #expect(try settle("a", [1]) == 2)
        #expect(try settle("a", [3, 6]) == 4)
        #expect(try settle("a", [5]) == 6)
        #expect(try store.read { db in try OutboxRepository().depth(sink: "a", in: db) } == 0)
        // The acknowledgement rows went with the cursor.
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sink_acks") } == 0)
    }

    @Test func entriesLeaveOnceEverySinkSettledThem() throws {
        _ = try settle("a", [1, 2, 3, 4])
        _ = try settle("b", [1, 2])
        let deleted = try store.write { db in try OutboxRepository().deleteSettled(sinks: ["a", "b"], in: db) }
        #expect(deleted == 2)
        let extent = try store.read { db in try OutboxRepository().extent(in: db) }
        #expect(extent.entries == 4)
        #expect(extent.oldest != nil)
        // With no sink configured nothing is delivered, so nothing leaves.
        #expect(try store.write { db in try OutboxRepository().deleteSettled(sinks: [], in: db) } == 0)
        // Sequences are never reused after a deletion.
        _ = try store.write { db in try OutboxRepository().append(StoreTests.notification("r/d/1-7"), in: db) }
        let last = try store.read { db in try OutboxRepository().entries(after: 0, limit: 10, in: db) }.last
        #expect(last?.sequence == 7)
    }

    @Test func deadLettersAreStoredAndReplayable() throws {
        let entry = try #require(try store.read { db in try OutboxRepository().entries(after: 0, limit: 1, in: db) }.first)
        let id = try store.write { db in
            try DeadLetterRepository().add(sink: "a", entry: entry, status: 400, response: "bad", attempts: 1, at: .wallClock(), in: db)
        }
        #expect(try store.read { db in try DeadLetterRepository().replayRequested(sink: "a", limit: 5, in: db) }.isEmpty)
        #expect(try store.write { db in try DeadLetterRepository().requestReplay(id: id, at: .wallClock(), in: db) })
        #expect(try !store.write { db in try DeadLetterRepository().requestReplay(id: id + 100, at: .wallClock(), in: db) })
        let pending = try store.read { db in try DeadLetterRepository().replayRequested(sink: "a", limit: 5, in: db) }
        #expect(pending.map(\.entry.deliveryId) == [entry.deliveryId])
        #expect(pending.first?.status == 400 && pending.first?.response == "bad")
        try store.write { db in
            try DeadLetterRepository().refusedAgain(id: id, status: 410, response: "gone", at: .wallClock(), in: db)
        }
        let letter = try #require(try store.read { db in try DeadLetterRepository().find(id: id, in: db) })
        #expect(letter.status == 410 && letter.attempts == 2 && letter.replayRequestedAt == nil)
    }
}
