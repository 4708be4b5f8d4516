import JSON
import Foundation
import Host
import Journal
import Logging
import Storage
import Synchronization
import Testing
import TriggerEngine

/// Batches submitted concurrently to the host (several connections) are each durable before they are answered,
/// each with its own rejections, share fsyncs, and a restart finds every one of them.
@Suite struct ConcurrentIngestTests {
    @Test func concurrentBatchesAreDurableAnsweredSeparatelyAndShareFsyncs() async throws {
        let f = try HostFixture("concurrent-ingest")
        let log = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))

        let count = 64
        let rejected = try await withThrowingTaskGroup(of: Int.self) { group in
            for k in 0..<count {
                group.addTask {
                    // The third fix is older than the second: late, and rejected in this batch's answer only.
                    let fixes = [(1, HostFixture.fix("g\(k)", 0, inside: false)), (2, HostFixture.fix("g\(k)", 10, inside: true)),
                                 (3, HostFixture.fix("g\(k)", 5, inside: true))]
                    let r = try await host.process(fixes: fixes.map { (line: $0.0, fix: $0.1) })
                    #expect(r.map(\.line) == [3])
                    #expect(log.journal.durablePosition >= 2)
                    return r.count
                }
            }
            var total = 0
            for try await n in group { total += n }
            return total
        }
        #expect(rejected == count)
        let statistics = log.journal.statistics
        #expect(statistics.records == UInt64(count + 1))
        // Group commit: fewer fsyncs than batches (each waiter joins the fsync in flight or the next one).
        #expect(statistics.fsyncs < count)
        #expect(await host.feeder.feedPending())
        #expect(HostFixture.outbox(host).count == count)
        log.close()

        // A restart without a checkpoint replays the whole journal.
        let reopened = try FileHostLog(directory: f.journalPath, logger: f.logger)
        let restarted = try EngineHost(store: try f.store(), log: reopened, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        #expect(restarted.restored.devices == count)
        #expect(restarted.restored.replayed == count + 1)
        #expect(restarted.restored.divergent == 0)
        // The one sink settled nothing: every notification is read again from the journal.
        #expect(restarted.restored.refed == count)
        #expect(await restarted.feeder.feedPending())
        #expect(HostFixture.outbox(restarted).count == count)
        let status = await restarted.status(ofDevice: "g3")
        #expect(status?.lastFix == HostFixture.fix("g3", 10, inside: true).timestamp)
    }
}

/// Notifications waiting for the journal's fsync are bounded: past the bound new input is refused (503), not queued
/// in memory without end; once the outbox catches up it is taken again.
@Suite struct FeedBacklogTests {
    @Test func inputIsRefusedWhileTheOutboxFeedIsBehindItsBound() async throws {
        let f = try HostFixture("feed-backlog")
        let host = try EngineHost(store: try f.store(), log: MemoryHostLog(), configuration: HostFixture.eventClock, sinks: HostFixture.sinks,
                                  feedBacklogLimit: 3, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        // No feeder service runs here: every entry stays in the backlog until feedPending.
        for k in 0..<3 {
            _ = try await host.process(fixes: [(line: 1, fix: HostFixture.fix("d\(k)", 0, inside: false)),
                                               (line: 2, fix: HostFixture.fix("d\(k)", 10, inside: true))])
        }
        #expect(host.feeder.backlog == 3)
        await #expect(throws: HostError.self) {
            _ = try await host.process(fixes: [(line: 1, fix: HostFixture.fix("late", 0, inside: false))])
        }
        #expect(await host.failureReason == nil, "a full backlog is back-pressure, not a failure")
        #expect(await host.feeder.feedPending())
        let accepted = try await host.process(fixes: [(line: 1, fix: HostFixture.fix("late", 0, inside: false))])
        #expect(accepted.isEmpty)
    }
}

/// Records are written off the host's actor: a write that fails answers its batch with the reason, every batch
/// evaluated behind it is refused too (a later record would take the failed one's position), nothing after it
/// reaches the log, and the host refuses input until a restart.
@Suite struct FailedWriteTests {
    /// A memory log whose `failAt`-th write (0-based) and every later one fail, like a disk that filled up.
    final class FailingLog: HostLog {
        let inner = MemoryHostLog()
        let failAt: Int
        private let writes = Mutex(0)
        init(failAt: Int) { self.failAt = failAt }
        var nextPosition: UInt64 { inner.nextPosition }
        var failureReason: String? { nil }
        func write(_ records: [JournalRecord]) throws(JournalError) -> Range<UInt64> {
            let n = writes.withLock { w in defer { w += 1 }; return w }
            if n >= failAt { throw .io(operation: "write", path: "memory", reason: "No space left on device") }
            return try inner.write(records)
        }
        func whenDurable(through position: UInt64, _ level: Durability, _ done: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
            inner.whenDurable(through: position, level, done)
        }
        func forEachRecord(from position: UInt64, _ body: (UInt64, JournalRecord) throws -> Void) throws {
            try inner.forEachRecord(from: position, body)
        }
        func saveCheckpoint(_ body: [UInt8], position: UInt64) throws(JournalError) { try inner.saveCheckpoint(body, position: position) }
        func checkpoints() throws(JournalError) -> [(position: UInt64, body: Result<[UInt8], JournalError>)] { try inner.checkpoints() }
        func dropRecords(before position: UInt64) throws(JournalError) { try inner.dropRecords(before: position) }
    }

    @Test func aFailedWriteRefusesItsBatchAndEveryLaterOne() async throws {
        let f = try HostFixture("failed-write")
        // Write 0 is the request, writes 1–4 the first four batches; the fifth batch's write fails.
        let log = FailingLog(failAt: 5)
        let host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(HostFixture.request("alex")))
        func batch(_ k: Int) -> [(line: Int, fix: LocationFix)] { [(line: 1, fix: HostFixture.fix("w\(k)", 0, inside: true))] }
        for k in 0..<4 { _ = try await host.process(fixes: batch(k)) }
        // Batches 4–11 submitted together: 4 fails in the log, the ones behind it were evaluated but never written.
        let outcomes = await withTaskGroup(of: (Int, String?).self) { group in
            for k in 4..<12 {
                group.addTask {
                    do { _ = try await host.process(fixes: batch(k)); return (k, nil) } catch { return (k, "\(error)") }
                }
            }
            var all: [Int: String?] = [:]
            for await (k, e) in group { all[k] = e }
            return all
        }
        #expect(outcomes.count == 8)
        for (k, e) in outcomes {
            #expect(e != nil, "batch \(k) was acknowledged after a failed write")
            #expect(e?.contains("No space left on device") == true || e?.contains("refused until a restart") == true, "\(k): \(e ?? "")")
        }
        #expect(log.inner.nextPosition == 5)
        #expect(await host.failureReason?.contains("No space left on device") == true)
        await #expect(throws: HostError.self) { _ = try await host.process(fixes: batch(99)) }
        // What was acknowledged is what a restart finds.
        log.inner.crash()
        let restarted = try EngineHost(store: try f.store(), log: log.inner, configuration: HostFixture.eventClock, sinks: HostFixture.sinks,
                                       logger: f.logger)
        #expect(restarted.restored.devices == 4)
        #expect(restarted.restored.divergent == 0)
    }
}
