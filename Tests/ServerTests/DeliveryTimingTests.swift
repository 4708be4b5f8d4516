import Delivery
import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import Testing
#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// Failures are paced by the configured backoff and reported at once; a shutdown without a broker is quick; a
/// start that cannot happen says which address or folder is at fault, before touching the database.
@Suite struct DeliveryTimingTests {

    static func counter(_ metrics: String, _ name: String, containing label: String) -> Double {
        metrics.split(separator: "\n").filter { $0.hasPrefix(name) && $0.contains(label) && $0.contains("retryable") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }

    /// Told apart by the work, not by a clock a loaded machine can miss: the webhook's timeout and the backoff's
    /// maximum are an hour, so a refused connection that waited for the timeout, or retries spaced by the maximum,
    /// would not reach four failures before `eventually` gives up; the backoff's own steps (0.5 s doubling) do.
    @Test func aRefusedWebhookFailsAtOnceAndRetriesAtTheBackoff() async throws {
        let server = try TestServer()
        let refusing = try LoopbackPort.Refusing()
        defer { withExtendedLifetime(refusing) {} }
        let url = "http://127.0.0.1:\(refusing.port)/hook"
        var c = server.configuration()
        c.sinks = [.webhook(url: url)]
        c.delivery.webhook.timeout = .seconds(3600)
        c.delivery.retry = RetryPolicy(initial: .milliseconds(500), maximum: .seconds(3600))
        try await server.run(configuration: c) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            let lines = [fixLine("d", 0, inside: false), fixLine("d", 1, inside: true)].joined(separator: "\n")
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: lines))
            func failures() async throws -> Double {
                Self.counter(try await client.execute(uri: "/metrics", method: .get).text, "geotrigger_delivery_failures_total", containing: url)
            }
            #expect(try await eventually { try await failures() >= 1 }, "no failure reported: the refused connection waited")
            #expect(try await eventually { try await failures() >= 4 }, "fewer than four failures: retries not at the backoff")
        }
    }

    /// A shutdown leaves undelivered entries in the outbox rather than waiting for a broker that is down: with a
    /// publish timeout of an hour, a shutdown that waited for it (once per device) would not end before
    /// `waitForExit` gives up.
    @Test func shutdownWithoutABrokerIsQuick() async throws {
        let directory = try TestServer().directory
        let refusing = try LoopbackPort.Refusing()
        defer { withExtendedLifetime(refusing) {} }
        let process = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("g.sqlite").path, "--listen", "127.0.0.1:0",
                                                   "--sink", "mqtt://127.0.0.1:\(refusing.port)/t/{device}?timeout=3600"], directory: directory)
        try await process.waitUntilListening()
        _ = try await process.put("/v1/requests/alex", requestJSON())
        let lines = (0..<3).flatMap { d in [fixLine("d\(d)", 0, inside: false), fixLine("d\(d)", 1, inside: true)] }
        _ = try await process.post("/v1/fixes", lines.joined(separator: "\n"))
        // The sink is waiting for the broker once the outbox holds the three entries.
        #expect(try await eventually { (try await process.get("/v1/outbox").body.map { String(buffer: $0) } ?? "").contains(#""entries":3,"#) })
        process.process.terminate()
        let exited = try await process.waitForExit(seconds: 600)
        #expect(exited && process.process.terminationStatus == 0, "\(process.log)")
    }

    @Test func aPortInUseIsNamedBeforeTheDatabaseIsOpened() async throws {
        let directory = try TestServer().directory
        let first = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("a.sqlite").path, "--listen", "127.0.0.1:0"],
                                     directory: directory)
        try await first.waitUntilListening()
        let second = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("b.sqlite").path,
                                                  "--listen", "127.0.0.1:\(first.port)"], directory: directory)
        try #require(try await second.waitForExit(seconds: 600), "still running: \(second.log)")
        #expect(second.process.terminationStatus == 2)
        #expect(second.log.contains("cannot listen for the API on 127.0.0.1:\(first.port)") && second.log.contains("Address already in use"),
                "\(second.log)")
        #expect(!second.log.contains("engine restored"), "\(second.log)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.sqlite").path))
        await first.stop()
    }

    @Test func aMissingDatabaseFolderIsNamed() async throws {
        let directory = try TestServer().directory
        let missing = directory.appendingPathComponent("no-such-folder").path
        let process = try ServeProcess(arguments: ["--database", missing + "/g.sqlite", "--listen", "127.0.0.1:0"], directory: directory)
        try #require(try await process.waitForExit(seconds: 600), "still running: \(process.log)")
        #expect(process.process.terminationStatus == 2)
        #expect(process.log.contains("cannot open the database \(missing)/g.sqlite: its folder \(missing) does not exist"), "\(process.log)")
    }
}
