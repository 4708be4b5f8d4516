import Foundation
import Journal
import Logging
import TestSupport
import Synchronization
import Testing

/// `JournalSync`: with an interval, a written record is acknowledged before any fsync, the fsync follows on its
/// own, and a close leaves everything durable and the mark exact; `always` is unchanged.
@Suite struct JournalSyncTests {
    let logger = Logger(label: "journal-sync-tests")

    static func record(_ k: Int) -> JournalRecord {
        JournalRecord(kind: 1, payload: (0..<60).map { UInt8(truncatingIfNeeded: $0 &+ k) })
    }

    /// The end position `acknowledged.mark` holds as the file reads now (page cache included).
    static func markEnd(_ directory: String) throws -> UInt64 {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/acknowledged.mark")))
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }.littleEndian
    }

    static func acknowledged(_ journal: Journal, through position: UInt64) async -> Result<Void, JournalError> {
        await withCheckedContinuation { c in journal.whenDurable(through: position, .acknowledgeable) { c.resume(returning: $0) } }
    }

    @Test func parsesTheSettingsValues() {
        #expect(JournalSync(parsing: "always") == .always)
        #expect(JournalSync(parsing: "interval:1s") == .interval(.seconds(1)))
        #expect(JournalSync(parsing: "interval:500ms") == .interval(.milliseconds(500)))
        #expect(JournalSync(parsing: "interval:2m") == .interval(.seconds(120)))
        #expect(JournalSync(parsing: "interval:2") == .interval(.seconds(2)))
        for bad in ["", "sometimes", "interval:", "interval:0s", "interval:-1s", "interval:2h", "interval:0.5ms", "interval:1x", "every:1s"] {
            #expect(JournalSync(parsing: bad) == nil, "\(bad)")
        }
        #expect(JournalSync.interval(.seconds(1)).description == "interval:1s")
        #expect(JournalSync.interval(.milliseconds(250)).description == "interval:250ms")
        #expect(JournalSync.always.description == "always")
    }

    @Test func anIntervalAcknowledgesWrittenRecordsBeforeAnyFsyncAndACloseMakesThemDurable() async throws {
        let directory = try TestFolders.make("journal-sync").path + "/journal"
        // An hour: the timed fsync cannot come during the test, so whatever is acknowledged was not synced.
        let journal = try Journal(directory: directory, configuration: .init(sync: .interval(.seconds(3600))), logger: logger)
        let before = journal.statistics.fsyncs
        var end: UInt64 = 0
        for k in 0..<10 {
            end = try journal.write([Self.record(k)]).upperBound
            journal.syncNow()  // the host's writer asks; with an interval it leaves the fsync to the timer
            #expect(try await Self.acknowledged(journal, through: end).get() == ())
        }
        #expect(end == 10)
        #expect(journal.statistics.fsyncs == before)
        #expect(journal.durablePosition == 0)
        #expect(try Self.markEnd(directory) == 0)
        journal.close()
        #expect(journal.statistics.fsyncs > before)
        #expect(try Self.markEnd(directory) == 10)
        let reopened = try Journal(directory: directory, configuration: .init(sync: .interval(.seconds(3600))), logger: logger)
        #expect(reopened.nextPosition == 10)
        #expect(reopened.openReport.tornTail == nil)
        reopened.close()
    }

    /// The three levels of `DurableWaiting` under an hour's interval: `acknowledgeable` at once without an fsync,
    /// `synced` not before the timer (still waiting when `syncedNow` comes), `syncedNow` at once, which answers
    /// the `synced` waiter too. Were `syncedNow` to wait for the timer, the test would wait an hour.
    @Test func syncedNowDoesNotWaitForTheIntervalAndAnswersTheOtherWaiters() async throws {
        let directory = try TestFolders.make("journal-sync").path + "/journal"
        let journal = try Journal(directory: directory, configuration: .init(sync: .interval(.seconds(3600))), logger: logger)
        defer { journal.close() }
        let end = try journal.write((0..<3).map(Self.record)).upperBound
        #expect(try await Self.acknowledged(journal, through: end).get() == ())
        #expect(journal.durablePosition == 0)
        let synced = Mutex<Result<Void, JournalError>?>(nil)
        journal.whenDurable(through: end, .synced) { r in synced.withLock { $0 = r } }
        #expect(synced.withLock { $0 } == nil, "answered before any fsync")
        try await journal.waitDurable(through: end, .syncedNow)
        #expect(journal.durablePosition >= end)
        #expect(try Self.markEnd(directory) == end)
        #expect(await eventually { synced.withLock { $0 } != nil })
        if case .failure(let e) = synced.withLock({ $0 }) { Issue.record("synced waiter failed: \(e)") }
    }

    @Test func theTimedFsyncComesWithoutAWaiterAndTheMarkFollowsIt() async throws {
        let directory = try TestFolders.make("journal-sync").path + "/journal"
        let journal = try Journal(directory: directory, configuration: .init(sync: .interval(.milliseconds(5))), logger: logger)
        defer { journal.close() }
        let end = try journal.write((0..<3).map(Self.record)).upperBound
        // Nobody asked for durability: the write scheduled the fsync. Polling bounded by the work, not a clock.
        #expect(await eventually(every: .milliseconds(2)) { journal.durablePosition >= end })
        #expect(try Self.markEnd(directory) == end)
        // A durability waiter (the outbox's, a checkpoint's) is answered by the timed fsync as well.
        let later = try journal.write([Self.record(3)]).upperBound
        try await journal.waitDurable(through: later)
        #expect(journal.durablePosition >= later)
    }

    @Test func alwaysAcknowledgesOnlyWhatAnFsyncCovered() async throws {
        let journal = try Journal(directory: try TestFolders.make("journal-sync").path + "/journal", logger: logger)
        defer { journal.close() }
        for k in 0..<5 {
            let end = try journal.write([Self.record(k)]).upperBound
            #expect(try await Self.acknowledged(journal, through: end).get() == ())
            #expect(journal.durablePosition >= end)
        }
    }
}
