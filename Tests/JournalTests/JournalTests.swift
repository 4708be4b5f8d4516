import Foundation
import Journal
import Logging
import Synchronization
import TestSupport
import Testing

/// The journal on a real file system: records come back in order with their positions, across reopening and
/// segment rotation; concurrent appends share fsyncs.
@Suite struct JournalTests {
    let directory: String
    let logger = Logger(label: "journal-tests")

    init() throws {
        directory = TestFolders.path("journal").path
    }

    static func record(_ k: Int, size: Int = 40) -> JournalRecord {
        JournalRecord(kind: UInt8(k % 5 + 1), payload: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ k) })
    }

    /// Polls `condition` for up to 30 s from this call, and once more after the last sleep. Each wait has its own
    /// deadline: with every suite running at once, a starved task can wake late, and one deadline shared by
    /// several waits once ran out before the last one had looked at all (a CI failure).
    static func waitUntil(_ condition: () -> Bool) async throws {
        _ = await eventually(timeout: .seconds(30), every: .milliseconds(1), condition)
    }

    static func readAll(_ directory: String, from: UInt64 = 0) throws -> [(UInt64, JournalRecord)] {
        var reader = try JournalReader(directory: directory, from: from)
        var out: [(UInt64, JournalRecord)] = []
        while let r = try reader.next() { out.append((r.position, r.record)) }
        return out
    }

    @Test func recordsComeBackInOrderAcrossReopenAndRotation() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(directory: directory, configuration: .init(segmentBytes: 1024), logger: logger)
        var positions: [Range<UInt64>] = []
        for k in 0..<50 { positions.append(try await journal.append([Self.record(2 * k), Self.record(2 * k + 1, size: 100)])) }
        #expect(positions.first == 0..<2 && positions.last == 98..<100)
        journal.close()
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".journal") }
        #expect(segments.count > 3)  // 7,900 bytes of frames in 1 KiB segments
        let reopened = try Journal(directory: directory, configuration: .init(segmentBytes: 1024), logger: logger)
        #expect(reopened.nextPosition == 100)
        #expect(reopened.openReport.tornTail == nil && reopened.openReport.records == 100)
        #expect(try await reopened.append([Self.record(100)]) == 100..<101)
        let all = try Self.readAll(directory)
        #expect(all.map(\.0) == Array(0..<101))
        #expect(all.map(\.1) == (0..<101).map { Self.record($0, size: $0 % 2 == 0 || $0 == 100 ? 40 : 100) })
        // Reading from a position skips what comes before it.
        #expect(try Self.readAll(directory, from: 57).map(\.0) == Array(57..<101))
    }

    @Test func concurrentAppendsShareFsyncs() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(directory: directory, logger: logger)
        let appends = 400
        try await withThrowingTaskGroup(of: Range<UInt64>.self) { group in
            for k in 0..<appends { group.addTask { try await journal.append([Self.record(k)]) } }
            var seen = Set<UInt64>()
            for try await r in group { seen.formUnion(r) }
            #expect(seen == Set(0..<UInt64(appends)))
        }
        let s = journal.statistics
        #expect(s.appends == appends)
        // Every append waited for an fsync covering it, and many shared one.
        #expect(s.fsyncs < appends / 2, "fsyncs \(s.fsyncs) for \(appends) appends")
        print("journal group commit: \(appends) concurrent appends, \(s.fsyncs) fsyncs")
        #expect(journal.durablePosition == UInt64(appends))
    }

    /// A write starts its own fsync: the records become durable with no one waiting, and a waiter for a record
    /// not yet written is answered by the write that brings it, not before.
    @Test func aWriteStartsItsFsyncAndEarlyWaitersWaitForTheirRecord() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(directory: directory, logger: logger)
        let first = try journal.write([Self.record(0), Self.record(1)])
        #expect(first == 0..<2)
        try await Self.waitUntil { journal.durablePosition >= 2 }
        #expect(journal.durablePosition == 2)
        #expect(journal.statistics.fsyncs >= 1)

        let answered = Mutex<[Result<Void, JournalError>]>([])
        journal.whenDurable(through: 4, .synced) { r in answered.withLock { $0.append(r) } }
        try await Task.sleep(for: .milliseconds(50))
        #expect(answered.withLock { $0.isEmpty }, "answered before record 3 was written")
        try journal.write([Self.record(2)])
        try await Task.sleep(for: .milliseconds(50))
        #expect(answered.withLock { $0.isEmpty }, "answered before record 3 was written")
        try journal.write([Self.record(3)])
        try await Self.waitUntil { !answered.withLock { $0.isEmpty } }
        let results = answered.withLock { $0 }
        #expect(results.count == 1)
        if case .failure(let e) = results.first { Issue.record("expected durable, got \(e)") }
        #expect(journal.durablePosition == 4)
    }

    /// A write told not to start its fsync leaves the record unsynced until `syncNow`, which syncs on the caller's
    /// thread and answers the waiters there, before it returns.
    @Test func syncNowSyncsOnTheCallersThreadWhatWritesLeftUnsynced() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(directory: directory, logger: logger)
        try journal.write([Self.record(0)], startingSync: false)
        try journal.write([Self.record(1)], startingSync: false)
        let answered = Mutex<[Bool]>([])
        journal.whenDurable(through: 2, .synced) { r in
            if case .success = r { answered.withLock { $0.append(true) } } else { answered.withLock { $0.append(false) } }
        }
        // A waiter for written records starts an fsync itself; let it finish, then check the deferred path alone.
        try await Self.waitUntil { !answered.withLock { $0.isEmpty } }
        #expect(answered.withLock { $0 } == [true])
        let fsyncs = journal.statistics.fsyncs
        try journal.write([Self.record(2)], startingSync: false)
        try await Task.sleep(for: .milliseconds(50))
        #expect(journal.durablePosition == 2, "a write that was told not to sync got synced")
        #expect(journal.statistics.fsyncs == fsyncs)
        journal.syncNow()
        #expect(journal.durablePosition == 3)
        #expect(journal.statistics.fsyncs == fsyncs + 1)
        journal.syncNow()  // nothing unsynced: no fsync
        #expect(journal.statistics.fsyncs == fsyncs + 1)
    }

    /// Once durable, a segment's whole pages leave the page cache (only a restart reads them again); what was
    /// written reads back the same from disk. In a preallocated segment the kernel caches the zeros in large folios
    /// (2 MiB here, on 6.18), and a folio leaves only whole: at most the one the next record goes into stays.
    @Test(arguments: [true, false])
    func durablePagesLeaveThePageCache(preallocate: Bool) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // One segment holds every record (the first is sized for no input rate otherwise: 1 MiB).
        let configuration = Journal.Configuration(minimumSegmentBytes: 64 << 20, preallocate: preallocate, preallocateAfter: 0)
        let journal = try Journal(directory: directory, configuration: configuration, logger: logger)
        let records = 400
        for k in 0..<records { try await journal.append([Self.record(k, size: 10_000)]) }
        let segment = directory + "/" + (try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".journal") }.first ?? "")
        // The records' bytes; after them the preallocated zeros stay cached, to be written over.
        let size = 16 + records * (9 + 10_000)
        guard let cache = PageCache.residentWholePages(segment, before: size) else {
            print("skipped: \(segment) is on a tmpfs (its pages live in the cache)")
            return
        }
        #expect(cache.pages >= 977)
        #expect(cache.resident <= (preallocate ? 512 : 0), "\(cache.resident) of \(cache.pages) durable pages still cached")
        journal.close()
        #expect(try Self.readAll(directory).map(\.1) == (0..<records).map { Self.record($0, size: 10_000) })
    }

    /// Closing with a waiter for a record never written answers it with an error, never with success.
    @Test func closingAnswersWaitersWithAnError() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(directory: directory, logger: logger)
        try await journal.append([Self.record(0)])
        journal.close()
        await #expect(throws: JournalError.self) { try await journal.waitDurable(through: 2) }
    }

    /// Segments after the first are begun in a spare of zeros prepared ahead (the first waits for its spare), and
    /// records go over those zeros; without preallocation, every segment grows as it is written. Either way a
    /// reopened journal goes on where the last record ends.
    @Test(arguments: [true, false])
    func preallocatedSegmentsAreWrittenOverAndReopenAtTheirEnd(preallocate: Bool) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = Journal.Configuration(segmentBytes: 4096, preallocate: preallocate, preallocateAfter: 0)
        let journal = try Journal(directory: directory, configuration: configuration, logger: logger)
        for k in 0..<200 { try await journal.append([Self.record(k)]) }  // 49 bytes each: 83 a segment
        let statistics = journal.statistics
        #expect(statistics.preallocatedSegments == (preallocate ? 3 : 0))
        #expect(statistics.appendedSegments == (preallocate ? 0 : 3))
        journal.close()
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".journal") }.sorted()
        #expect(segments.count == 3)
        for (k, name) in segments.enumerated() {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
            #expect(bytes[7] == (preallocate ? 2 : 1), "\(name): version \(bytes[7])")
            let records = k < 2 ? 83 : 200 - 166
            #expect(bytes.count == (preallocate ? 4096 : 16 + records * 49), "\(name): \(bytes.count) bytes")
        }
        let reopened = try Journal(directory: directory, configuration: configuration, logger: logger)
        #expect(reopened.openReport.tornTail == nil && reopened.nextPosition == 200)
        #expect(try await reopened.append([Self.record(200)]) == 200..<201)
        reopened.close()
        #expect(try Self.readAll(directory).map(\.1) == (0...200).map { Self.record($0) })
    }

    /// Where the file system takes `O_DIRECT` (ext4 here; not tmpfs), preallocated segments are written past the
    /// page cache, a record at a time rewriting the block it starts in: records of every size, alone or several in
    /// one write, ending inside a block or exactly at its end, come back byte for byte, across rotations and a
    /// reopen, which goes on past the page cache in the segment it reopens: written through the cache, every small
    /// record dirtied the large folio the kernel read around it, and its fsync wrote all of it back.
    @Test func directSegmentsHoldEveryRecordAcrossBlocks() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = Journal.Configuration(segmentBytes: 64 << 10, preallocateAfter: 0)
        let journal = try Journal(directory: directory, configuration: configuration, logger: logger)
        var rng = SplitMix(seed: 16)
        var expected: [JournalRecord] = []
        // 16-byte header + 9-byte frame header + 4071 = 4096: the first record ends exactly at a block's end.
        var sizes = [4071, 4087, 1, 8192 - 9, 0, 20_000]
        while expected.count < 300 {
            let size = sizes.isEmpty ? Int(rng.next() % 9_000) : sizes.removeFirst()
            if rng.next() % 4 == 0 {
                let group = [Self.record(expected.count, size: size), Self.record(expected.count + 1, size: size / 3)]
                try await journal.append(group)
                expected += group
            } else {
                let r = Self.record(expected.count, size: size)
                try await journal.append([r])
                expected.append(r)
            }
        }
        let statistics = journal.statistics
        journal.close()
        let probe = directory + "/probe"
        let fd = open(probe, O_WRONLY | O_CREAT | 0o40000, 0o644)  // O_DIRECT on x86-64
        if fd >= 0 { close(fd); unlink(probe) } else { print("skipped the direct checks: \(directory) refuses O_DIRECT") }
        if fd >= 0 {
            #expect(statistics.directSegments == statistics.preallocatedSegments && statistics.directSegments >= 5,
                    "\(statistics.directSegments) direct of \(statistics.preallocatedSegments) preallocated segments")
        }
        #expect(try Self.readAll(directory).map(\.1) == expected)

        let reopened = try Journal(directory: directory, configuration: configuration, logger: logger)
        #expect(reopened.openReport.tornTail == nil && reopened.nextPosition == UInt64(expected.count))
        if fd >= 0 { #expect(reopened.statistics.directSegments == 1, "the reopened segment is written through the page cache") }
        for _ in 0..<40 {
            let r = Self.record(expected.count, size: Int(rng.next() % 6_000))
            try await reopened.append([r])
            expected.append(r)
        }
        if fd >= 0 { #expect(reopened.statistics.directSegments >= 1) }
        reopened.close()
        #expect(try Self.readAll(directory).map(\.1) == expected)
    }

    /// By default the spare is prepared only once the current segment holds 1 MiB (or a quarter of a segment): a
    /// journal that stays small writes no zeros, and a busy one moves from its appended segment into the spare as
    /// soon as it is ready.
    @Test func aSmallJournalWritesNoZerosAndABusyOneMovesIntoASpare() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let small = try Journal(directory: directory, logger: logger)
        for k in 0..<20 { try await small.append([Self.record(k)]) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + Journal.spareName), "a small journal prepared a spare")
        small.close()

        let configuration = Journal.Configuration(segmentBytes: 64 << 10)  // the spare from 16 KB on
        let busy = try Journal(directory: directory, configuration: configuration, logger: logger)
        var k = 20
        while busy.statistics.preallocatedSegments < 2, k < 20_000 {
            try await busy.append([Self.record(k, size: 1_000)])
            k += 1
        }
        #expect(busy.statistics.preallocatedSegments >= 2 && busy.statistics.appendedSegments == 0)
        busy.close()
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".journal") }.sorted()
        let versions = try segments.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0)))[7] }
        // The first segment was appended (and left early, well before 64 KB); the ones after it are preallocated.
        #expect(versions.first == 1 && versions.dropFirst().allSatisfy { $0 == 2 } && versions.count >= 3, "\(versions)")
        let first = try #require(try FileManager.default.attributesOfItem(atPath: directory + "/" + segments[0])[.size] as? Int)
        #expect(first < 64 << 10)
        #expect(try Self.readAll(directory).map(\.0) == (0..<k).map(UInt64.init))
    }

    /// Preallocated segments follow the input rate: a new journal's first is the smallest, sustained writes double
    /// them up to `segmentBytes` (every other segment here: with `preallocateAfter` 0 a spare is asked for as its
    /// segment begins, sized by the one before), and a rate that would not fill the smallest in
    /// `segmentSeconds` keeps them at the smallest (here a rate no loop can reach: the test is bounded by work).
    @Test(arguments: [false, true])
    func preallocatedSegmentsAreSizedToTheInputRate(quiet: Bool) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = Journal.Configuration(segmentBytes: 1 << 20, minimumSegmentBytes: 64 << 10, preallocateAfter: 0)
        if quiet { configuration.segmentSeconds = 1e-12 }
        let journal = try Journal(directory: directory, configuration: configuration, logger: logger)
        var k = 0
        while journal.statistics.preallocatedSegments < 7, k < 100_000 {
            try journal.write([Self.record(k, size: 1_000)])
            k += 1
        }
        try await journal.waitDurable(through: UInt64(k))
        journal.close()
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".journal") }.sorted()
        let sizes = try segments.map { try #require(try FileManager.default.attributesOfItem(atPath: directory + "/" + $0)[.size] as? Int) }
        // The newest is still being written (its size is its preallocation either way).
        let expected = quiet ? Array(repeating: 64 << 10, count: sizes.count)
                             : (0..<sizes.count).map { min(1 << 20, (64 << 10) << ($0 / 2)) }
        #expect(sizes == expected, "\(sizes)")
        #expect(try Self.readAll(directory).map(\.0) == (0..<k).map(UInt64.init))
    }

    @Test func droppedSegmentsAreGoneAndTheRestReads() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(directory: directory, configuration: .init(segmentBytes: 1024), logger: logger)
        for k in 0..<60 { try await journal.append([Self.record(k)]) }
        try journal.dropSegments(before: 40)
        let first = journal.firstPosition
        #expect(first > 0 && first <= 40)
        #expect(try Self.readAll(directory, from: 40).map(\.0) == Array(40..<60))
        #expect(try Self.readAll(directory).first?.0 == first)
    }
}
