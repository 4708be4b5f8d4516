import Foundation
import Testing
import TestSupport

/// Issue 44, "Quiet disks": an idle `serve` writes nothing, after a restart too (the reopened preallocated segment
/// is written past the page cache again, and ticks that only move the clock are not journaled). Measured the way
/// the issue measured it: `write_bytes` in /proc/PID/io, over clock ticks counted by the service itself.
@Suite(.serialized) struct QuietDiskServeTests {
    static func writeBytes(_ pid: Int32) throws -> Int {
        let io = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
        let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("write_bytes:") })
        return Int(line.split(separator: " ").last ?? "") ?? -1
    }

    static func heldTicks(_ server: ServeProcess) async throws -> Int {
        let text = try await server.get("/metrics").body.map { String(buffer: $0) } ?? ""
        return JournalDamageServeTests.metric(text, "geotrigger_clock_ticks_unjournaled_total")
    }

    @Test func anIdleServiceWritesNothingAfterARestart() async throws {
        let work = try TestServer()
        let database = work.directory.appendingPathComponent("g.sqlite").path
        let sink = work.directory.appendingPathComponent("out.ndjson").path
        // Small segments, so the reopened one is a preallocated segment (the case that wrote a folio per tick).
        let arguments = ["--journal-segment-bytes", "65536"]
        var server = try ServeProcess(database: database, sink: sink, directory: work.directory, arguments: arguments)
        try await server.waitUntilListening()
        #expect(try await server.put("/v1/requests/alex", requestJSON()).head.status.code == 201)
        for b in 0..<20 { #expect(try await server.post("/v1/fixes", DiskFullServeTests.batch(b)).head.status.code == 200) }
        await server.stop()

        server = try ServeProcess(database: database, sink: sink, directory: work.directory, arguments: arguments)
        try await server.waitUntilListening()
        let first = try await Self.heldTicks(server)
        let before = try Self.writeBytes(server.process.processIdentifier)
        // Three ticks that moved the clock only, however late a loaded machine runs them (five minutes: only a
        // service that holds no tick gets that far).
        var polls = 0
        while try await Self.heldTicks(server) < first + 3, polls < 1_500 {
            try await Task.sleep(for: .milliseconds(200))
            polls += 1
        }
        #expect(try await Self.heldTicks(server) >= first + 3, "no tick was held")
        let written = try Self.writeBytes(server.process.processIdentifier) - before
        // The one write a start may still make: the next segment's spare, 64 KiB of zeros in one write, when the
        // reopened segment is past a quarter full (a start remakes it, its thread may run late). No tick writes.
        #expect(written == 0 || written == 65_536, "an idle service wrote \(written) bytes over three clock ticks")
        // The held tick and the next batch are journaled as before: nothing acknowledged is lost across the restart.
        #expect(try await server.post("/v1/fixes", DiskFullServeTests.batch(20)).head.status.code == 200)
        await server.stop()
        #expect(!server.log.contains("torn tail"), "\(server.log)")
    }
}
