import Foundation
import HummingbirdTesting
import Testing
import TestSupport

/// SIGTERM in the middle of an ingest stream: the server refuses new input, lets the batch in flight commit,
/// delivers the outbox, closes the database and exits 0; the sink then holds the notifications of every answered
/// batch.
@Suite(.serialized) struct ShutdownTests {
    /// 400 batches like CrashTests': long enough that SIGTERM lands mid-stream.
    static let batches: [String] = (0..<400).map { b in
        CrashTests.devices.enumerated().map { k, d in fixLine(d, b * 10 + k, inside: (b + k) % 3 != 0) }.joined(separator: "\n")
    }

    /// Sends the batches one after another until one is not answered 200; returns how many were.
    static func send(_ batches: ArraySlice<String>, port: Int) async -> Int {
        var answered = 0
        for batch in batches {
            guard let r = try? await ServeProcess.send(.post, "/v1/fixes", batch, port: port), r.status == .ok else { break }
            answered += 1
        }
        return answered
    }

    func start(_ directory: URL, name: String) async throws -> (ServeProcess, sink: String) {
        let sink = directory.appendingPathComponent("\(name).ndjson").path
        let server = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("\(name).sqlite").path,
                                                  "--listen", "127.0.0.1:0", "--sink", "ndjson:\(sink)", "--clock", "event"],
                                      directory: directory)
        try await server.waitUntilListening()
        let put = try await server.put("/v1/requests/alex", requestJSON())
        #expect(put.status == .created)
        return (server, sink)
    }

    @Test func sigtermMidStreamDeliversEveryAnsweredBatch() async throws {
        let directory = try TestServer().directory
        let (server, sink) = try await start(directory, name: "terminated")
        let port = server.port
        // 20 batches first, so notifications have fired; then SIGTERM while the rest stream in.
        #expect(await Self.send(Self.batches[..<20], port: port) == 20)
        let stream = Task { await Self.send(Self.batches[20...], port: port) }
        try await Task.sleep(for: .milliseconds(100))
        kill(server.process.processIdentifier, SIGTERM)
        let answered = await stream.value + 20
        try #require(try await server.waitForExit(seconds: 600), "still running: \(server.log)")
        #expect(server.process.terminationReason == .exit)
        #expect(server.process.terminationStatus == 0)
        let log = server.log
        for step in ["shutdown: intake stopped", "shutdown: inputs, HTTP server and clock stopped", "shutdown: outbox flushed",
                     "shutdown: database and journal closed"] {
            #expect(log.contains(step), "missing log: \(step)")
        }
        #expect(answered > 0 && answered < Self.batches.count, "SIGTERM should land mid-stream (answered \(answered))")

        // The same answered batches on a fresh server, stopped only once all is delivered.
        let (reference, referenceSink) = try await start(directory, name: "reference")
        #expect(await Self.send(Self.batches[..<answered], port: reference.port) == answered)
        await reference.stop()
        let expected = try CrashTests.deduplicated(referenceSink).lines
        let got = try CrashTests.deduplicated(sink).lines
        #expect(expected.count > 0)
        #expect(Array(got.prefix(expected.count)) == expected)
    }
}
