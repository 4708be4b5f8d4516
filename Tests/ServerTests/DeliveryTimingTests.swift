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

    @Test func aRefusedWebhookFailsAtOnceAndRetriesAtTheBackoff() async throws {
        let server = try TestServer()
        let refusing = try LoopbackPort.Refusing()
        defer { withExtendedLifetime(refusing) {} }
        let url = "http://127.0.0.1:\(refusing.port)/hook"
        var c = server.configuration()
        c.sinks = [.webhook(url: url)]
        try await server.run(configuration: c) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            let fired = ContinuousClock.now
            let lines = [fixLine("d", 0, inside: false), fixLine("d", 1, inside: true)].joined(separator: "\n")
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: lines))
            func failures() async throws -> Double {
                Self.counter(try await client.execute(uri: "/metrics", method: .get).text, "geotrigger_delivery_failures_total", containing: url)
            }
            let first = try await eventually(timeout: .seconds(15)) { try await failures() >= 1 }
            let firstAfter = ContinuousClock.now - fired
            // The bounds tell the behaviour apart from its failure modes with room for a starved pool (the server
            // under test shares this process's two pool threads with the whole suite): a refused connection waiting
            // for the webhook timeout would fail after 10 s, not 8.
            #expect(first && firstAfter < .seconds(8), "first failure after \(firstAfter)")
            // Backoff 0.5 s doubling with jitter (½…1×): four attempts fit in 0.5 + 1 + 2 = 3.5 s after the first;
            // four 10 s timeouts, or retries at the 60 s maximum, would take over 30 s.
            let four = try await eventually(timeout: .seconds(40)) { try await failures() >= 4 }
            let fourAfter = ContinuousClock.now - fired
            #expect(four && fourAfter < .seconds(20), "four failures after \(fourAfter)")
        }
    }

    @Test func shutdownWithoutABrokerIsQuick() async throws {
        let directory = try TestServer().directory
        let refusing = try LoopbackPort.Refusing()
        defer { withExtendedLifetime(refusing) {} }
        let process = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("g.sqlite").path, "--listen", "127.0.0.1:0",
                                                   "--sink", "mqtt://127.0.0.1:\(refusing.port)/t/{device}"], directory: directory)
        try await process.waitUntilListening()
        _ = try await process.put("/v1/requests/alex", requestJSON())
        let lines = (0..<3).flatMap { d in [fixLine("d\(d)", 0, inside: false), fixLine("d\(d)", 1, inside: true)] }
        _ = try await process.post("/v1/fixes", lines.joined(separator: "\n"))
        try await Task.sleep(for: .seconds(1))
        let start = ContinuousClock.now
        process.process.terminate()
        let exited = try await process.waitForExit(seconds: 30)
        let took = ContinuousClock.now - start
        #expect(exited && process.process.terminationStatus == 0, "\(process.log)")
        #expect(took < .seconds(5), "SIGTERM took \(took)")
    }

    @Test func aPortInUseIsNamedBeforeTheDatabaseIsOpened() async throws {
        let directory = try TestServer().directory
        let first = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("a.sqlite").path, "--listen", "127.0.0.1:0"],
                                     directory: directory)
        try await first.waitUntilListening()
        let second = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("b.sqlite").path,
                                                  "--listen", "127.0.0.1:\(first.port)"], directory: directory)
        #expect(try await second.waitForExit(seconds: 20))
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
        #expect(try await process.waitForExit(seconds: 20))
        #expect(process.process.terminationStatus == 2)
        #expect(process.log.contains("cannot open the database \(missing)/g.sqlite: its folder \(missing) does not exist"), "\(process.log)")
    }
}
