import Foundation
import Testing
import TestSupport

/// `serve` with its database and journal on a disk that fills up under ingest: the batch that no longer fits is
/// answered 503 with the reason (nothing of it acknowledged), later changes and `/readyz` say why until a restart,
/// and a restart after the operator freed space delivers exactly what an uninterrupted run of the acknowledged
/// batches delivers: nothing acknowledged is lost.
@Suite(.serialized, .enabled(if: SmallDisk.canMount, "mounts a small tmpfs to fill it: needs root (skipped otherwise)"))
struct DiskFullServeTests {
    static let devices = (0..<8).map { "dev-\($0)" }

    /// Batch `b`: every device moves in or out of the circle, so most fixes fire (as in CrashTests).
    static func batch(_ b: Int) -> String {
        devices.enumerated().map { k, d in fixLine(d, b * 10 + k, inside: (b + k) % 3 != 0) }.joined(separator: "\n")
    }

    @Test func aFullDiskAnswers503WithTheReasonAndLosesNothingAcknowledged() async throws {
        let work = try TestServer()
        let disk = try SmallDisk(size: "1m")
        defer { disk.unmount() }
        let database = disk.folder + "/g.sqlite", sink = work.directory.appendingPathComponent("out.ndjson").path

        var server = try ServeProcess(database: database, sink: sink, directory: work.directory)
        try await server.waitUntilListening()
        #expect(try await server.put("/v1/requests/alex", requestJSON()).head.status.code == 201)
        var acknowledged = 0
        var refusal: (status: Int, body: String)?
        for b in 0..<20_000 {
            let answer = try await server.post("/v1/fixes", Self.batch(b))
            guard answer.head.status.code == 200 else {
                refusal = (answer.head.status.code, String(buffer: answer.body ?? .init()))
                break
            }
            acknowledged += 1
        }
        let refused = try #require(refusal, "1 MiB never filled up")
        #expect(acknowledged > 10)
        #expect(refused.status == 503)
        #expect(refused.body.contains("No space left on device"), "\(refused.body)")
        // Refused until a restart, and the probe says why.
        #expect(try await server.post("/v1/fixes", Self.batch(acknowledged)).head.status.code == 503)
        let ready = try await server.get("/readyz")
        #expect(ready.head.status.code == 503)
        #expect(String(buffer: ready.body ?? .init()).contains("No space left on device"))
        server.kill9()

        // The operator frees space; the service restarts on the same files.
        try disk.grow(to: "64m")
        server = try ServeProcess(database: database, sink: sink, directory: work.directory)
        try await server.waitUntilListening()

        // The reference: an uninterrupted run of the acknowledged batches on a roomy disk.
        let expected = try await Self.reference(batches: 0..<acknowledged, in: work.directory)

        let got = try await Self.settledLines(sink, count: expected.lines.count)
        #expect(expected.lines.count > 50)
        let firstDifference = Array(zip(got.lines, expected.lines)).firstIndex { $0 != $1 }
        #expect(got.lines.count == expected.lines.count && firstDifference == nil,
                "\(got.lines.count) notifications after the restart, \(expected.lines.count) expected; first difference at \(firstDifference ?? -1)")
        // And it takes input again.
        #expect(try await server.post("/v1/fixes", Self.batch(acknowledged)).head.status.code == 200)
        await server.stop()
    }

    /// What an uninterrupted `serve` on a roomy disk delivers for `batches`, in a folder of its own under `directory`.
    static func reference(batches: Range<Int>, in directory: URL) async throws -> (lines: [String], repeated: Set<String>) {
        let roomy = directory.appendingPathComponent("reference")
        try FileManager.default.createDirectory(at: roomy, withIntermediateDirectories: true)
        let sink = roomy.appendingPathComponent("out.ndjson").path
        let reference = try ServeProcess(database: roomy.appendingPathComponent("g.sqlite").path, sink: sink, directory: directory)
        try await reference.waitUntilListening()
        _ = try await reference.put("/v1/requests/alex", requestJSON())
        for b in batches { #expect(try await reference.post("/v1/fixes", batch(b)).head.status.code == 200) }
        // The orderly shutdown delivers the outbox once more to every sink: after it the file is complete. (Waiting
        // for a second without a new line instead once cut the reference short on a starved CI machine.)
        await reference.stop()
        return try CrashTests.deduplicated(sink)
    }

    /// A running server's sink file's notifications (each deliveryId once) once it holds `count` of them and a
    /// further second brought nothing (extra lines would show), or what it holds when `eventually` gives up (the
    /// comparison then says what is missing). Waiting for 20 quiet seconds instead once gave up on a starved machine.
    static func settledLines(_ path: String, count: Int) async throws -> (lines: [String], repeated: Set<String>) {
        _ = try await eventually(every: .milliseconds(100)) { try CrashTests.deduplicated(path).lines.count >= count }
        var last = -1, quiet = ContinuousClock.now
        _ = try await eventually(every: .milliseconds(100)) {
            let now = try CrashTests.deduplicated(path).lines.count
            if now != last { last = now; quiet = ContinuousClock.now }
            return ContinuousClock.now - quiet >= .seconds(1)
        }
        return try CrashTests.deduplicated(path)
    }
}
