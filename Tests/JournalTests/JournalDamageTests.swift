import Foundation
import Journal
import Logging
import TestSupport
import Testing

/// What a crash or a bad disk leaves: a torn tail is cut off and logged; damage inside refuses to open with the file
/// and offset, unless `recover`, which keeps what comes before it and moves the rest aside.
@Suite struct JournalDamageTests {
    let directory: String
    let logger = Logger(label: "journal-damage-tests")

    init() throws {
        directory = TestFolders.path("journal-damage").path
    }

    func write(_ n: Int, segmentBytes: Int = 64 << 20, preallocate: Bool = true) async throws -> String {
        let journal = try Journal(directory: directory, configuration: .init(segmentBytes: segmentBytes, preallocate: preallocate, preallocateAfter: 0), logger: logger)
        for k in 0..<n { try await journal.append([JournalTests.record(k)]) }
        journal.close()
        return directory + "/" + (try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".journal") }.sorted().last!)
    }

    /// Writes `bytes` where the next record would go (in a preallocated segment, over its zeros).
    func write(_ bytes: [UInt8], to path: String, at offset: Int) throws {
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.seek(toOffset: UInt64(offset))
        try h.write(contentsOf: Data(bytes))
        try h.close()
    }

    func flip(_ path: String, at offset: Int) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[offset] ^= 0xFF
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Frame size of `JournalTests.record(_:)`: 8 bytes of header, kind, 40 bytes of payload.
    let frame = 49
    let header = 16

    @Test(arguments: [
        ("a partial frame header", [UInt8](repeating: 7, count: 5)),
        ("a frame cut short", [60, 0, 0, 0, 1, 2, 3, 4, 1, 9, 9]),
        ("zeros", [UInt8](repeating: 0, count: 300)),
    ] as [(String, [UInt8])], [true, false] as [Bool])
    func tornTailIsCutOffAndTheJournalGoesOn(torn tail: (what: String, bytes: [UInt8]), preallocated: Bool) async throws {
        let (what, tail) = tail
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try await write(10, preallocate: preallocated)
        let end = header + 10 * frame
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        // A new journal's first preallocated segment has the smallest size: no input rate was seen yet.
        #expect(size == (preallocated ? 1 << 20 : end))
        try write(tail, to: path, at: end)
        let journal = try Journal(directory: directory, configuration: .init(preallocate: preallocated), logger: logger)
        if preallocated && what == "zeros" {
            // Zeros where the next frame would start are a preallocated segment's end.
            #expect(journal.openReport.tornTail == nil)
        } else {
            let torn = try #require(journal.openReport.tornTail, "\(what)")
            #expect(torn.offset == Int64(end) && torn.bytes == Int64(tail.count))
        }
        #expect(journal.nextPosition == 10)
        #expect(try await journal.append([JournalTests.record(10)]) == 10..<11)
        #expect(try JournalTests.readAll(directory).map(\.0) == Array(0..<11))
    }

    /// kill -9 during a segment rotation: the next segment's file exists but its header is missing or cut short
    /// (CrashTests caught a start refused for it). Nothing is lost and the journal goes on in that file.
    @Test(arguments: [0, 5, 16])
    func aNewSegmentWithoutItsHeaderIsATornTail(bytes: Int) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await write(10)
        let next = directory + "/00000000000000000010.journal"
        let partial = bytes == 16 ? [UInt8](repeating: 0, count: 16) : Array((Array("GTJRNL".utf8) + [0, 1] + [UInt8](repeating: 0, count: 8)).prefix(bytes))
        _ = FileManager.default.createFile(atPath: next, contents: Data(partial))
        // A replay of the crashed journal as it is (`geotrigger replay DIR`) reads the records and ends quietly.
        #expect(try JournalTests.readAll(directory).map(\.0) == Array(0..<10))
        let journal = try Journal(directory: directory, logger: logger)
        let torn = try #require(journal.openReport.tornTail)
        #expect(torn.path == next && torn.offset == 0 && torn.bytes == Int64(bytes))
        #expect(journal.nextPosition == 10)
        #expect(try await journal.append([JournalTests.record(10)]) == 10..<11)
        journal.close()
        #expect(try JournalTests.readAll(directory).map(\.0) == Array(0..<11))
    }

    /// A new segment whose first bytes are not a header's is damage, not a crash's leftover.
    @Test func aNewSegmentWithForeignBytesIsDamage() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await write(10)
        let next = directory + "/00000000000000000010.journal"
        _ = FileManager.default.createFile(atPath: next, contents: Data("hello".utf8))
        #expect(throws: JournalError.self) { _ = try Journal(directory: directory, logger: logger) }
    }

    /// The last record was acknowledged (the mark names it): a bad checksum there is damage, not a torn tail.
    @Test(arguments: [true, false])
    func lastAcknowledgedFrameWithABadChecksumIsDamage(preallocated: Bool) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try await write(10, preallocate: preallocated)
        try flip(path, at: header + 9 * frame + 20)
        #expect(throws: JournalError.damaged(path: path, offset: Int64(header + 9 * frame),
                                             reason: "record 9: checksum mismatch (not a torn tail: the acknowledged mark \(directory)/acknowledged.mark names record 9)")) {
            _ = try Journal(directory: directory, logger: logger)
        }
    }

    @Test(arguments: [true, false])
    func damageInsideRefusesToOpenWithFileAndOffset(preallocated: Bool) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try await write(10, preallocate: preallocated)
        try flip(path, at: header + 3 * frame + 20)
        #expect(throws: JournalError.damaged(path: path, offset: Int64(header + 3 * frame), reason: "record 3: checksum mismatch")) {
            _ = try Journal(directory: directory, logger: logger)
        }
        // The reader refuses the same way: a replay never silently skips records.
        #expect(throws: JournalError.self) { _ = try JournalTests.readAll(directory) }
    }

    /// A preallocated segment with garbage after zeros (bytes where no write of the journal's goes) is damage,
    /// not a torn tail: a torn tail is only what follows the last record directly.
    @Test func bytesAfterAPreallocatedSegmentsZerosAreDamage() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try await write(10)
        try write([1, 2, 3], to: path, at: header + 10 * frame + 4096)
        #expect(throws: JournalError.damaged(path: path, offset: Int64(header + 10 * frame), reason: "record 10: impossible frame length 0")) {
            _ = try Journal(directory: directory, logger: logger)
        }
    }
}
