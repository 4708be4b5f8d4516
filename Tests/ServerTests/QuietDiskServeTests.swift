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

    /// Payload bytes the journal holds more of (`geotrigger_journal_bytes_total`).
    static func journalBytes(_ server: ServeProcess) async throws -> Int {
        let text = try await server.get("/metrics").body.map { String(buffer: $0) } ?? ""
        return JournalDamageServeTests.metric(text, "geotrigger_journal_bytes_total")
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
        _ = try await eventually(timeout: .seconds(300), every: .milliseconds(200)) { try await Self.heldTicks(server) >= first + 3 }
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

    /// `--sync interval`: acknowledged batches are written through the page cache and synced together, so a
    /// trickle of small batches dirties the journal's tail page once, not a block and a mark each (`--sync
    /// always` writes two 4 KiB blocks per batch). An hour's interval keeps the timed fsync (and with it the
    /// sink's delivery, which waits for durability) out of the measurement however slowly the machine runs.
    @Test func aSyncIntervalWritesATrickleOfBatchesAsOnePage() async throws {
        let work = try TestServer()
        let database = work.directory.appendingPathComponent("g.sqlite").path
        let sink = work.directory.appendingPathComponent("out.ndjson").path
        let server = try ServeProcess(database: database, sink: sink, directory: work.directory,
                                      arguments: ["--sync", "interval:1h", "--checkpoint-interval", "3600"])
        try await server.waitUntilListening()
        #expect(try await server.put("/v1/requests/alex", requestJSON()).head.status.code == 201)
        #expect(try await server.post("/v1/fixes", DiskFullServeTests.batch(0)).head.status.code == 200)
        let journaledBefore = try await Self.journalBytes(server)
        let before = try Self.writeBytes(server.process.processIdentifier)
        for b in 1..<21 { #expect(try await server.post("/v1/fixes", DiskFullServeTests.batch(b)).head.status.code == 200) }
        let written = try Self.writeBytes(server.process.processIdentifier) - before
        let journaled = try await Self.journalBytes(server) - journaledBefore
        // The pages the records filled, and the partly filled ones at either end: each page is counted once,
        // when it is first dirtied (`--sync always` writes at least a block and a mark per batch: 20 × 8 KiB).
        let pages = (journaled + 4095) / 4096 + 2
        #expect(journaled > 0)
        #expect(written <= pages * 4096, "20 acknowledged batches (\(journaled) bytes journaled) wrote \(written) bytes")
        #expect(written < 20 * 8192)
        await server.stop()
        // The orderly stop synced them: nothing is cut off as a torn tail at the next start, and every batch is there.
        let again = try ServeProcess(database: database, sink: sink, directory: work.directory, arguments: ["--sync", "interval:1h"])
        try await again.waitUntilListening()
        let devices = try await again.get("/v1/devices").body.map { String(buffer: $0) } ?? ""
        #expect(devices.contains(DiskFullServeTests.devices[0]))
        await again.stop()
        #expect(!again.log.contains("torn tail"), "\(again.log)")
    }
}
