import Delivery
import Foundation
import HummingbirdTesting
import EngineLog
import Journal
import Logging
import Storage
import Testing
import TestSupport

/// kill -9 at a random moment of an ingest stream, restart on the same file, resend the stream from the start:
/// the notifications (deduplicated by deliveryId, since delivery is at least once) are exactly those of an
/// uninterrupted run, in the same order; and a notification arrives twice only if its delivery had not been
/// acknowledged when the process died (its journal holds it past the sink's stored cursor).
@Suite(.serialized) struct CrashTests {
    static let devices = (0..<8).map { "dev-\($0)" }

    /// 40 batches; in each, every device moves in or out of the circle, so most fixes fire.
    static let batches: [String] = (0..<40).map { b in
        devices.enumerated().map { k, d in
            fixLine(d, b * 10 + k, inside: (b + k) % 3 != 0)
        }.joined(separator: "\n")
    }

    /// Runs the stream; with `killAfter`, returns the deliveryIds the sink had not settled at the kill.
    @discardableResult
    func run(database: String, sink: String, directory: URL, killAfter: Int?, arguments: [String] = []) async throws -> Set<String> {
        var unacknowledged = Set<String>()
        var server = try ServeProcess(database: database, sink: sink, directory: directory, arguments: arguments)
        try await server.waitUntilListening()
        _ = try await server.put("/v1/requests/alex", requestJSON())
        if let killAfter {
            for batch in Self.batches[..<killAfter] { _ = try await server.post("/v1/fixes", batch) }
            // Kill while the next batch is in flight.
            let port = server.port, batch = Self.batches[killAfter]
            let inFlight = Task { _ = try? await ServeProcess.send(.post, "/v1/fixes", batch, port: port) }
            try await Task.sleep(for: .milliseconds(2))
            server.kill9()
            _ = await inFlight.value
            // What the dead process left in its file: the entries its only sink had not acknowledged.
            unacknowledged = try Self.unsettled(database: database)
            server = try ServeProcess(database: database, sink: sink, directory: directory, arguments: arguments)
            try await server.waitUntilListening()
            // The client does not know which fixes were committed: it sends them all again. (Not the request: its
            // PUT was answered, so it is stored, and a PUT again would replace it and start its state afresh.)
        }
        for batch in Self.batches { _ = try await server.post("/v1/fixes", batch) }
        try await Task.sleep(for: .milliseconds(500))
        await server.stop()
        return unacknowledged
    }

    /// The notifications in a dead service's journal past its one sink's stored cursor.
    static func unsettled(database: String) throws -> Set<String> {
        let store = try SQLiteStore(path: database, logger: Logger(label: "crash-tests"))
        let cursor = try store.sinkCursors().values.first ?? 0
        try store.close()
        var reader = try JournalReader(directory: database + ".journal")
        var out = Set<String>()
        while let (position, record) = try reader.next() {
            for (k, n) in try HostRecord(record, position: position).notifications.enumerated()
            where JournalOutbox.sequence(position: position, index: k) > cursor {
                out.insert(n.deliveryId)
            }
        }
        return out
    }

    /// The sink file's lines, each deliveryId's first only, and the deliveryIds that came more than once.
    static func deduplicated(_ path: String) throws -> (lines: [String], repeated: Set<String>) {
        var seen = Set<String>()
        var out: [String] = []
        var repeated = Set<String>()
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let r = line.range(of: #""deliveryId":""#) else { continue }
            let id = String(line[r.upperBound...].prefix { $0 != "\"" })
            if seen.insert(id).inserted { out.append(String(line)) } else { repeated.insert(id) }
        }
        return (out, repeated)
    }

    @Test(arguments: [3, 17, 31]) func killNineMidStreamLosesAndRepeatsNothing(killAfter: Int) async throws {
        try await killAndCompare(killAfter: killAfter, arguments: [])
    }

    /// The same with a checkpoint every 20 ms and 4 KiB journal segments: the kill lands during checkpoints (a
    /// temporary file not yet renamed, a rename not yet synced) and segment rotations as well as group commits.
    @Test(arguments: [5, 23, 36]) func killNineDuringCheckpointsAndRotationsLosesAndRepeatsNothing(killAfter: Int) async throws {
        try await killAndCompare(killAfter: killAfter, arguments: ["--checkpoint-interval", "0.02", "--checkpoint-records", "1",
                                                                   "--journal-segment-bytes", "4096"])
    }

    /// `--sync interval`: batches are acknowledged before their fsync, which a long interval holds back; a killed
    /// process loses none of them (the kernel still holds the written pages, and the restart syncs them first).
    @Test(arguments: [4, 29]) func killNineWithASyncIntervalLosesAndRepeatsNothing(killAfter: Int) async throws {
        try await killAndCompare(killAfter: killAfter, arguments: ["--sync", "interval:1s"])
    }

    func killAndCompare(killAfter: Int, arguments: [String]) async throws {
        let server = try TestServer()
        let reference = server.directory.appendingPathComponent("reference")
        let crashed = server.directory.appendingPathComponent("crashed")
        try FileManager.default.createDirectory(at: reference, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: crashed, withIntermediateDirectories: true)
        try await run(database: reference.appendingPathComponent("g.sqlite").path,
                      sink: reference.appendingPathComponent("out.ndjson").path, directory: server.directory, killAfter: nil)
        let unacknowledged = try await run(database: crashed.appendingPathComponent("g.sqlite").path,
                                           sink: crashed.appendingPathComponent("out.ndjson").path, directory: server.directory,
                                           killAfter: killAfter, arguments: arguments)
        let expected = try Self.deduplicated(reference.appendingPathComponent("out.ndjson").path)
        let got = try Self.deduplicated(crashed.appendingPathComponent("out.ndjson").path)
        #expect(expected.lines.count > 100)
        #expect(expected.repeated.isEmpty, "an uninterrupted run repeats nothing")
        #expect(got.lines.count == expected.lines.count)
        #expect(got.lines == expected.lines)
        #expect(got.repeated.isSubset(of: unacknowledged),
                "repeated although acknowledged before the kill: \(got.repeated.subtracting(unacknowledged).sorted())")
    }
}
