import Foundation
import Journal
import Logging
import TestSupport
import Testing

/// Issue 43's cases 1–4: damage to acknowledged records is refused with the file and offset, never taken for a
/// torn tail; a recovery reports exactly what it skipped, and positions never move back.
@Suite struct JournalIntegrityTests {
    let directory: String
    let logger = Logger(label: "journal-integrity-tests")
    /// Frame size of `JournalTests.record(_:)`: 8 bytes of header, kind, 40 bytes of payload.
    let frame = 49
    let header = 16

    init() throws {
        directory = try TestFolders.make("journal-integrity").path
    }

    func open(recover: Bool = false, segmentBytes: Int = 64 << 20, knownEnd: UInt64 = 0) throws -> Journal {
        try Journal(directory: directory, configuration: .init(segmentBytes: segmentBytes, recover: recover, preallocateAfter: 0,
                                                               knownEnd: knownEnd, knownEndSource: "a test's cursor"), logger: logger)
    }

    func write(_ n: Int, segmentBytes: Int = 64 << 20) async throws {
        let journal = try open(segmentBytes: segmentBytes)
        for k in 0..<n { try await journal.append([JournalTests.record(k)]) }
        journal.close()
    }

    var segments: [String] {
        get throws { try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".journal") }.sorted().map { directory + "/" + $0 } }
    }

    func flip(_ path: String, at offset: Int, mask: UInt8 = 0x01) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[offset] ^= mask
        try data.write(to: URL(fileURLWithPath: path))
    }

    func damagedOffset(_ body: () throws -> Void) -> (path: String, offset: Int64, reason: String)? {
        do { try body() } catch {
            if case .damaged(let path, let offset, let reason)? = error as? JournalError { return (path, offset, reason) }
        }
        return nil
    }

    // MARK: 1. A bit flip or a truncation in the newest segment

    /// The first case: one bit of a frame's length field flipped, so the frame runs past the end of the
    /// file; every record after it was acknowledged, so it is damage, not a torn tail.
    @Test func case1AFlippedLengthBitInTheNewestSegmentIsRefusedWithFileAndOffset() async throws {
        try await write(120)
        let path = try #require(try segments.last)
        try flip(path, at: header + 10 * frame + 2, mask: 0x10)
        let damage = try #require(damagedOffset { _ = try open() })
        #expect(damage.path == path && damage.offset == Int64(header + 10 * frame))
        #expect(damage.reason.contains("not a torn tail"))
        #expect(throws: JournalError.self) { _ = try JournalTests.readAll(directory) }
    }

    @Test func case1ANewestSegmentTruncatedMidRecordIsRefused() async throws {
        try await write(120, segmentBytes: 64 << 20)
        let path = try #require(try segments.last)
        #expect(truncate(path, off_t(header + 65 * frame + 20)) == 0)
        let damage = try #require(damagedOffset { _ = try open() })
        #expect(damage.path == path && damage.offset == Int64(header + 65 * frame))
    }

    @Test func case1ANewestSegmentTruncatedAtAFrameBoundaryIsRefused() async throws {
        try await write(120)
        let path = try #require(try segments.last)
        #expect(truncate(path, off_t(header + 65 * frame)) == 0)
        let damage = try #require(damagedOffset { _ = try open() })
        #expect(damage.reason.contains("records 65..<120 are missing"))
    }

    /// What a crash can leave, bytes past every acknowledged record, is still a torn tail and is cut.
    @Test func case1BytesPastTheAcknowledgedEndAreATornTail() async throws {
        try await write(10)
        let path = try #require(try segments.last)
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.seek(toOffset: UInt64(header + 10 * frame))
        try h.write(contentsOf: Data([60, 0, 0, 0, 1, 2, 3, 4, 9]))
        try h.close()
        let journal = try open()
        #expect(journal.openReport.tornTail?.offset == Int64(header + 10 * frame))
        #expect(journal.nextPosition == 10)
    }

    /// A cursor in the database names a record the journal no longer has: damage, though the file ends cleanly.
    @Test func case1AJournalEndingBeforeASinkCursorIsRefused() async throws {
        try await write(10)
        let damage = try #require(damagedOffset { _ = try open(knownEnd: 15) })
        #expect(damage.reason.contains("a test's cursor") && damage.reason.contains("records 10..<15"))
    }

    /// A renamed segment would give its records other positions: its header says which it holds.
    @Test func case1ARenamedSegmentIsRefused() async throws {
        try await write(30, segmentBytes: 600)
        let files = try segments
        let last = try #require(files.last)
        let renamed = directory + "/00000000000000000500.journal"
        #expect(rename(last, renamed) == 0)
        #expect(damagedOffset { _ = try open(segmentBytes: 600) } != nil)
    }

    // MARK: 2. Positions never move back

    /// The second case: after a recovery, new records start past every position anything durable named,
    /// so a sink cursor or a checkpoint never comes to name a different record.
    @Test func case2AfterARecoveryNewRecordsStartPastTheAcknowledgedEnd() async throws {
        try await write(120)
        let path = try #require(try segments.last)
        try flip(path, at: header + 50 * frame + 20)
        #expect(damagedOffset { _ = try open() } != nil)
        let journal = try open(recover: true)
        #expect(journal.skippedRanges.map(\.records) == [50..<120])
        #expect(journal.nextPosition == 120)
        #expect(try await journal.append([JournalTests.record(120)]) == 120..<121)
        journal.close()
        // A later start accepts the recorded gap, and reports it again.
        let again = try open()
        #expect(again.skippedRanges.map(\.records) == [50..<120])
        #expect(again.openReport.newlySkipped.isEmpty)
        #expect(try JournalTests.readAll(directory).map(\.0) == Array(0..<50) + [120])
    }

    @Test func case2AfterARecoveryNewRecordsStartPastASinkCursor() async throws {
        try await write(10)
        let journal = try open(recover: true, knownEnd: 40)
        #expect(journal.skippedRanges.map(\.records) == [10..<40])
        #expect(try await journal.append([JournalTests.record(40)]) == 40..<41)
    }

    @Test func case2ADeletedNewestSegmentIsRefusedAndRecoveredPastIt() async throws {
        try await write(40, segmentBytes: 600)
        let files = try segments
        #expect(files.count >= 3)
        let last = try #require(files.last)
        let lastFirst = try #require(UInt64(last.split(separator: "/").last!.dropLast(".journal".count)))
        #expect(unlink(last) == 0)
        #expect(damagedOffset { _ = try open(segmentBytes: 600) } != nil)
        let journal = try open(recover: true, segmentBytes: 600)
        #expect(journal.skippedRanges.map(\.records) == [lastFirst..<40])
        #expect(journal.nextPosition == 40)
    }

    // MARK: 3. and 4. Recovery reports every skipped range and keeps what it can

    /// The fourth case: a missing segment in the middle used to move every later one aside, silently.
    @Test func case4RecoverOverAMissingSegmentKeepsTheLaterOnesAndReportsTheRange() async throws {
        try await write(60, segmentBytes: 600)
        let files = try segments
        #expect(files.count >= 4)
        let middle = files[1]
        let from = try #require(UInt64(middle.split(separator: "/").last!.dropLast(".journal".count)))
        let until = try #require(UInt64(files[2].split(separator: "/").last!.dropLast(".journal".count)))
        #expect(unlink(middle) == 0)
        let damage = try #require(damagedOffset { _ = try open(segmentBytes: 600) })
        #expect(damage.reason.contains("a segment is missing"))
        let journal = try open(recover: true, segmentBytes: 600)
        #expect(journal.skippedRanges.map(\.records) == [from..<until])
        #expect(journal.openReport.skipped.contains { $0.contains("records \(from)..<\(until)") })
        #expect(journal.nextPosition == 60)
        #expect(try JournalTests.readAll(directory).map(\.0) == Array(0..<from) + Array(until..<60))
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".damaged") }
        #expect(aside.isEmpty)
        let ranges = try String(contentsOfFile: directory + "/skipped.ranges", encoding: .utf8)
        #expect(ranges.hasPrefix("\(from) \(until) "))
    }

    /// Damage inside an older segment: the rest of that segment goes aside and its range is reported; the later
    /// segments stay.
    @Test func case4DamageInAnOlderSegmentSkipsOnlyItsRest() async throws {
        try await write(60, segmentBytes: 600)
        let files = try segments
        let second = files[1]
        let first = try #require(UInt64(second.split(separator: "/").last!.dropLast(".journal".count)))
        let next = try #require(UInt64(files[2].split(separator: "/").last!.dropLast(".journal".count)))
        try flip(second, at: header + 2 * frame + 30)
        let journal = try open(recover: true, segmentBytes: 600)
        #expect(journal.skippedRanges.map(\.records) == [(first + 2)..<next])
        #expect(try JournalTests.readAll(directory).map(\.0) == Array(0..<(first + 2)) + Array(next..<60))
    }

    @Test func case4ADeletedOldestSegmentIsRefused() async throws {
        try await write(40, segmentBytes: 600)
        #expect(unlink(try segments[0]) == 0)
        let damage = try #require(damagedOffset { _ = try open(segmentBytes: 600) })
        #expect(damage.reason.contains("records from 0 on"))
    }

    /// Dropping segments after a checkpoint is on purpose: the mark records where the journal now starts.
    @Test func segmentsDroppedOnPurposeOpenCleanly() async throws {
        let journal = try open(segmentBytes: 600)
        for k in 0..<40 { try await journal.append([JournalTests.record(k)]) }
        try journal.dropSegments(before: 25)
        let first = journal.firstPosition
        #expect(first > 0)
        journal.close()
        let again = try open(segmentBytes: 600)
        #expect(again.firstPosition == first && again.nextPosition == 40 && again.skippedRanges.isEmpty)
    }

    @Test func aDamagedMarkIsRefusedAndRecoverRewritesIt() async throws {
        try await write(10)
        try flip(directory + "/acknowledged.mark", at: 9)
        let damage = try #require(damagedOffset { _ = try open() })
        #expect(damage.path.hasSuffix("acknowledged.mark"))
        let journal = try open(recover: true)
        #expect(journal.nextPosition == 10)
        journal.close()
        #expect(try open().nextPosition == 10)
    }
}
