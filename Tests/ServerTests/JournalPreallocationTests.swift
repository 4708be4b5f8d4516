import Foundation
@testable import Journal
import Testing
import TestSupport

/// `serve` preallocates its journal segments (zeros written ahead, records written over them) unless
/// `--no-journal-preallocation`; either way a kill -9 and a restart deliver the same notifications, and the journal
/// goes on where its last record ends.
@Suite(.serialized) struct JournalPreallocationTests {
    @Test(arguments: [true, false])
    func segmentsArePreallocatedUnlessTurnedOffAndSurviveKillNine(preallocate: Bool) async throws {
        let work = try TestServer()
        let database = work.directory.appendingPathComponent("g.sqlite").path
        let sink = work.directory.appendingPathComponent("out.ndjson").path
        let segmentBytes = 65_536
        let arguments = ["--journal-segment-bytes", "\(segmentBytes)"] + (preallocate ? [] : ["--no-journal-preallocation"])
        var server = try ServeProcess(database: database, sink: sink, directory: work.directory, arguments: arguments)
        try await server.waitUntilListening()
        #expect(try await server.put("/v1/requests/alex", requestJSON()).head.status.code == 201)
        for b in 0..<150 { #expect(try await server.post("/v1/fixes", DiskFullServeTests.batch(b)).head.status.code == 200) }
        server.kill9()

        let journal = database + ".journal"
        let segments = try FileManager.default.contentsOfDirectory(atPath: journal).filter { $0.hasSuffix(".journal") }.sorted()
        #expect(segments.count >= 3, "\(segments)")
        for (k, name) in segments.enumerated() {
            // The first segment grows as it is appended to until the spare, asked for at 16 KB, is ready, and moves
            // into it then: which of the two it is depends on how soon the spare was written (a race not to assert).
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: journal + "/" + name)))
            let preallocated = bytes[7] == 2
            #expect(preallocate || !preallocated, "\(name): preallocated although turned off")
            if preallocate && k > 0 { #expect(preallocated, "\(name): version \(bytes[7])") }
            if preallocated { #expect(bytes.count == segmentBytes, "\(name): \(bytes.count) bytes") }
            else {
                // Grown record by record: the journal's own scan finds whole, valid frames ending exactly where the
                // file ends, with no zeros after them. (A record's own last byte may be 0: testing the file's last
                // byte for that once failed a correct run.)
                let scan = JournalSegment.scan(bytes, firstPosition: UInt64(name.dropLast(JournalSegment.suffix.count)) ?? 0)
                #expect(bytes.count <= segmentBytes && scan.problem == nil && scan.validEnd == bytes.count,
                        "\(name): \(bytes.count) bytes, frames end at \(scan.validEnd), \(scan.problem?.reason ?? "no problem")")
            }
        }

        server = try ServeProcess(database: database, sink: sink, directory: work.directory, arguments: arguments)
        try await server.waitUntilListening()
        for b in 150..<160 { #expect(try await server.post("/v1/fixes", DiskFullServeTests.batch(b)).head.status.code == 200) }
        await server.stop()
        #expect(!server.log.contains("torn tail"), "a kill -9 between requests leaves no torn tail: \(server.log)")

        // The reference: the same batches without a crash.
        let expected = try await DiskFullServeTests.reference(batches: 0..<160, in: work.directory)
        let got = try CrashTests.deduplicated(sink)
        #expect(expected.lines.count > 100)
        #expect(got.lines == expected.lines, "\(got.lines.count) notifications, \(expected.lines.count) expected")
    }
}
