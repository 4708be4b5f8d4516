import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import Server

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Runs the HTTP service: requests, fixes and sightings in, fired notifications out through a durable outbox.",
        discussion: """
            State lives in one SQLite file: a restart (even after kill -9) restores every accepted request and all \
            device state, and fires nothing twice. Fired notifications are delivered to each --sink in order, at \
            least once (deduplicate by deliveryId). Listening on a non-loopback address requires a bearer token, \
            from the GEOTRIGGER_TOKEN environment variable or --token-file. Logs go to standard error.
            """)

    @Option(help: "SQLite database file (created if missing).") var database = "./geotrigger.sqlite"
    @Option(help: "Address to listen on, HOST:PORT (port 0 picks a free one).") var listen = "127.0.0.1:8080"
    @Option(name: .customLong("sink"), help: "Where fired notifications go: ndjson:PATH, ndjson:- for standard output, or webhook:URL (http or https). Repeatable.")
    var sinks: [String] = []
    @Option(help: "File holding the bearer token clients must send (overrides GEOTRIGGER_TOKEN).") var tokenFile: String?
    @Option(help: "Largest request body accepted, in bytes.") var maxBodyBytes = 16 << 20
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
    @Option(help: "Clock: wall (live: deadlines fire on wall time) or event (replay: the newest input's timestamp).")
    var clock = "wall"
    @OptionGroup(title: "Delivery") var delivery: DeliveryOptions

    func validate() throws {
        if Self.splitListen(listen) == nil { throw ValidationError("--listen must be HOST:PORT, got \(listen)") }
        for s in sinks where SinkConfiguration(argument: s) == nil { throw ValidationError("unknown --sink \(s): use ndjson:PATH, ndjson:- or webhook:URL") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("unknown --log-level \(logLevel)") }
        if ServerConfiguration.Clock(rawValue: clock) == nil { throw ValidationError("unknown --clock \(clock): use wall or event") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "geotrigger.serve")

        var token = ProcessInfo.processInfo.environment["GEOTRIGGER_TOKEN"]
        if let tokenFile {
            token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let (host, port) = Self.splitListen(listen) else { throw ValidationError("bad --listen") }
        var configuration = ServerConfiguration(
            databasePath: database, host: host, port: port, sinks: sinks.compactMap(SinkConfiguration.init(argument:)),
            token: token, maximumBodyBytes: maxBodyBytes, clock: ServerConfiguration.Clock(rawValue: clock) ?? .wall)
        configuration.delivery = try delivery.configuration()
        let server: GeoTriggerServer
        do {
            server = try GeoTriggerServer(configuration: configuration, logger: logger, metricsText: { registry.emitToBuffer() })
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(2)
        }
        let app = server.makeApplication { port in
            logger.notice("listening", metadata: ["host": "\(host)", "port": "\(port)"])
        }
        try await app.runService()
    }

    /// `HOST:PORT`, `[IPv6]:PORT`.
    static func splitListen(_ s: String) -> (String, Int)? {
        guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(s[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
