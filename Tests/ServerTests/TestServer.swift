import Foundation
import HTTPTypes
import NIOCore
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import Prometheus
import Server
import TestSupport

/// Prometheus as the metrics backend, bootstrapped once for the whole test process (the facade allows one).
let testRegistry: PrometheusCollectorRegistry = {
    let registry = PrometheusCollectorRegistry()
    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    return registry
}()

/// A real server on a loopback port chosen by the system, over a real SQLite file in its own temporary folder.
struct TestServer {
    let directory: URL
    var database: String { directory.appendingPathComponent("geotrigger.sqlite").path }
    var sinkPath: String { directory.appendingPathComponent("out.ndjson").path }

    init() throws {
        // In the test process's folder, removed when it exits: a test may read its files until it ends, and the
        // suite starts hundreds of servers (their folders used to pile up in /tmp, 1,400 after a few runs).
        directory = try TestFolders.make("server-tests")
    }

    func configuration(token: String? = nil, limit: Int = 1 << 20, clock: ServerConfiguration.Clock = .wall) -> ServerConfiguration {
        ServerConfiguration(databasePath: database, host: "127.0.0.1", port: 0, sinks: [.ndjson(path: sinkPath)],
                            token: token, maximumBodyBytes: limit, clock: clock)
    }

    /// Starts the server, runs `body` against it over HTTP, stops it.
    func run<T>(token: String? = nil, limit: Int = 1 << 20, clock: ServerConfiguration.Clock = .wall, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let registry = testRegistry
        var logger = Logger(label: "server-tests")
        logger.logLevel = .warning
        let server = try GeoTriggerServer(configuration: configuration(token: token, limit: limit, clock: clock), logger: logger,
                                          metricsText: { registry.emitToBuffer() })
        // Closed after each test: the suite starts hundreds of servers.
        return try await server.closingStorage { try await server.makeApplication().test(.live) { try await body(PatientClient(inner: $0)) } }
    }


    /// Starts the server with `configuration`, runs `body` against it over HTTP, stops it.
    func run<T>(configuration: ServerConfiguration, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let registry = testRegistry
        var logger = Logger(label: "server-tests")
        logger.logLevel = .critical
        let server = try GeoTriggerServer(configuration: configuration, logger: logger, metricsText: { registry.emitToBuffer() })
        // Closed after each test: the suite starts hundreds of servers.
        return try await server.closingStorage { try await server.makeApplication().test(.live) { try await body(PatientClient(inner: $0)) } }
    }

    /// The sink's lines once it has at least `count` (the dispatcher runs on its own), or what it has after
    /// `seconds`: by default only a hang's bound (`eventually`); a test that expects nothing names the quiet time
    /// it waits.
    func sinkLines(atLeast count: Int, within seconds: Int = 600) async throws -> [String] {
        let path = sinkPath
        func read() -> [String] { ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        _ = await eventually(timeout: .seconds(seconds), every: .milliseconds(50)) { read().count >= count }
        return read()
    }
}

/// The deliveryIds and devices of an NDJSON sink file, in order.
func ndjsonNotifications(_ path: String) -> [(deliveryId: String, device: String)] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").flatMap {
        WebhookScheduler.notifications(Array($0.utf8))
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
}


