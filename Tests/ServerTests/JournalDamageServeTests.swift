import Foundation
import NIOCore
import Testing
import TestSupport

/// Issue 43's first two cases through the real executable: acknowledged batches, kill -9, one bit flipped in a
/// frame's length field of the newest segment. The restart used to take that for a torn tail and drop every later
/// batch; `--recover` then reused positions below the sink's cursor, so nothing fired afterwards was delivered.
@Suite struct JournalDamageServeTests {
    static func metric(_ text: String, _ name: String) -> Int {
        text.split(separator: "\n").filter { $0.hasPrefix(name) }.compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0) { $0 + Int($1) }
    }

    @Test func case1And2AFlippedLengthBitIsRefusedAndARecoveryGoesOnDelivering() async throws {
        let work = try TestServer()
        let database = work.directory.appendingPathComponent("g.sqlite").path
        let sink = work.directory.appendingPathComponent("out.ndjson").path
        var server = try ServeProcess(database: database, sink: sink, directory: work.directory)
        try await server.waitUntilListening()
        #expect(try await server.put("/v1/requests/alex", requestJSON()).head.status.code == 201)
        for b in 0..<40 { #expect(try await server.post("/v1/fixes", DiskFullServeTests.batch(b)).head.status.code == 200) }
        // Everything fired so far is delivered before the kill: otherwise the recovered server delivers the rest
        // from its outbox, and those would be counted against what it fired itself (under load a delivery lags).
        let first = try await Self.waitForDelivery(server, sink: sink, since: 0)
        #expect(first.delivered == first.fired && first.fired > 0, "\(first)")
        server.kill9()

        // The second frame of the newest segment: its length field's third byte gets a bit that makes it 1 MiB longer.
        let journal = database + ".journal"
        let newest = try #require(try FileManager.default.contentsOfDirectory(atPath: journal).filter { $0.hasSuffix(".journal") }.sorted().last)
        let path = journal + "/" + newest
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let firstLength = Int(bytes[16]) | Int(bytes[17]) << 8 | Int(bytes[18]) << 16 | Int(bytes[19]) << 24
        let second = 16 + 8 + firstLength
        bytes[second + 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        server = try ServeProcess(database: database, sink: sink, directory: work.directory)
        #expect(try await server.waitForExit(seconds: 120), "a damaged journal must refuse to start")
        #expect(server.log.contains("journal damaged: \(path) at byte \(second)"), "\(server.log)")
        #expect(server.log.contains("--recover"))

        let before = try CrashTests.deduplicated(sink).lines.count
        server = try ServeProcess(database: database, sink: sink, directory: work.directory, arguments: ["--recover"])
        try await server.waitUntilListening()
        #expect(server.log.contains("records skipped"), "\(server.log)")
        #expect(Self.metric((try await server.get("/metrics").body.map { String(buffer: $0) } ?? ""),
                            "geotrigger_journal_skipped_records") > 0)
        // Put again: 201 if the recovery skipped the record that added it, 200 if a checkpoint or an earlier frame
        // kept it (which depends on where the records fell around the damage).
        #expect([200, 201].contains(try await server.put("/v1/requests/alex", requestJSON()).head.status.code))
        for b in 100..<110 { #expect(try await server.post("/v1/fixes", DiskFullServeTests.batch(b)).head.status.code == 200) }
        // Every notification fired since the recovery reaches the sink.
        let after = try await Self.waitForDelivery(server, sink: sink, since: before)
        #expect(after.fired > 0)
        #expect(after.delivered == after.fired, "\(after.delivered) of \(after.fired) notifications fired after the recovery were delivered")
        await server.stop()
    }

    /// Waits until the sink holds as many notifications past its first `since` as the server says it fired. The
    /// count fired is read again each time (the clock can fire more after the last batch's answer). Bounded by
    /// tries, not by a time a loaded machine can miss: delivery is immediate on an idle machine, and the loop ends
    /// as soon as they are there.
    static func waitForDelivery(_ server: ServeProcess, sink: String, since: Int) async throws -> (delivered: Int, fired: Int) {
        var result = (delivered: 0, fired: 0)
        _ = try await eventually(every: .milliseconds(100)) {
            let metrics = try await server.get("/metrics").body.map { String(buffer: $0) } ?? ""
            result.fired = metric(metrics, "geotrigger_notifications_total")
            result.delivered = try CrashTests.deduplicated(sink).lines.count - since
            return result.delivered == result.fired
        }
        return result
    }
}
