import Inputs
import ArgumentParser
import BlueZDBus
import BuildVersion
import Foundation
import Logging
import MallocHugePages
import Metrics
import Prometheus
import Server
import Cluster
import ServiceLifecycle

/// `geotrigger serve`: its own executable, which `geotrigger serve` runs (see `ServeLauncher`), so replaying and
/// converting traces never build or load the HTTP server, TLS, the HTTP client and SQLite.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geotrigger serve",
        abstract: "Runs the HTTP service: requests, fixes and sightings in, fired notifications out through a durable outbox.",
        discussion: discussion,
        version: BuildVersion.string)

    /// First of all, the heap on huge pages (`MallocHugePages`: an exec of this binary, before anything runs).
    static func main() async {
        MallocHugePages.restartWithThemIfUseful()
        // `geotrigger token …` is run here too: it needs SQLite, which `geotrigger` does not carry.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "token" {
            await CommandErrors.run(TokenCommand.self, Array(arguments.dropFirst()), prefix: "geotrigger token")
        }
        await CommandErrors.run(ServeCommand.self, arguments, prefix: "geotrigger serve")
    }

    /// `--help`: what a first run needs; `--help-all` adds every option and the settings table.
    static let discussion = """
        Every accepted input is in the journal (fsync'd before it is answered), with checkpoints of the engine \
        beside it; the SQLite file holds the sinks' cursors and the request listing. A restart (even after \
        kill -9) restores every accepted request and all device state, and fires nothing twice. Fired \
        notifications are delivered to each --sink in order, at least once (deduplicate by deliveryId). SIGTERM \
        or SIGINT shuts down in order: new input is refused (503), batches in flight commit, the outbox is \
        delivered, the journal and database are closed. SIGHUP applies the --regions file again.

        Settings come from, first match wins: a flag, a GEOTRIGGER_* environment variable, the JSON file of \
        --config, the default. --help-all lists every option, and every setting with its variable, file key and \
        default (also in docs/service.md).
        """

    /// The table `--help-all` ends with: every setting's file key, environment variable and default.
    static var settingsTable: String {
        var text = """
            Every setting comes from, first match wins: a flag, a GEOTRIGGER_* environment variable, the JSON file \
            of --config (or \(ServeSettings.configFileVariable)), the default. In the file, a dotted key is a \
            nested object; list settings are arrays, comma-separated in the environment. The token has no flag (a \
            command line is visible to every user of the machine).


            """
        // Columns as wide as the longest entry; a row too long for the terminal wraps before its default.
        let keyWidth = ServeSettings.all.map(\.key.count).max() ?? 0
        let variableWidth = ServeSettings.all.map(\.environmentVariable.count).max() ?? 0
        text += "\(pad("FILE KEY", keyWidth)) \(pad("ENVIRONMENT", variableWidth)) DEFAULT\n"
        for s in ServeSettings.all {
            text += "\(pad(s.key, keyWidth)) \(pad(s.environmentVariable, variableWidth)) \(s.defaultValue ?? "none")\n"
        }
        return text
    }

    /// The settings whose flags `--help` shows; the others are in `--help-all`.
    static let common: Set<String> = ["database", "regions", "listen", "sink", "input", "bluetooth", "bluetoothBackend",
                                      "tokenFile", "logLevel", "logFormat"]

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

    static func help(_ key: String) -> ArgumentHelp {
        ArgumentHelp(ServeSettings.all.first { $0.key == key }?.flagHelp ?? "", visibility: common.contains(key) ? .default : .hidden)
    }

    @Flag(name: .customLong("help-all"), help: "Every option, and every setting with its environment variable, file key and default.")
    var helpAll = false

    @Option(help: "JSON configuration file (env \(ServeSettings.configFileVariable)).") var config: String?
    @Option(help: ServeCommand.help("database")) var database: String?
    @Option(help: ServeCommand.help("regions")) var regions: String?
    @Option(help: ServeCommand.help("regionsIdProperty")) var regionsIdProperty: String?
    @Option(help: ServeCommand.help("journal")) var journal: String?
    @Option(help: ServeCommand.help("journal.segmentBytes")) var journalSegmentBytes: Int?
    @Option(help: ServeCommand.help("journal.sync")) var sync: String?
    @Option(help: ServeCommand.help("checkpoint.interval")) var checkpointInterval: Double?
    @Option(help: ServeCommand.help("checkpoint.records")) var checkpointRecords: Int?
    @Option(help: ServeCommand.help("checkpoint.inputs")) var checkpointInputs: Int?
    @Option(help: ServeCommand.help("cluster.instance")) var instance: String?
    @Option(help: ServeCommand.help("cluster.partitions")) var partitions: Int?
    @Option(help: ServeCommand.help("cluster.replicas")) var replicas: Int?
    @Option(help: ServeCommand.help("cluster.leaseTTL")) var leaseTtl: Double?
    @Option(help: ServeCommand.help("cluster.sessionTimeout")) var sessionTimeout: Double?
    @Flag(help: ArgumentHelp("Start despite damage inside the journal or the newest checkpoint: use the newest good checkpoint and the journal up to the damage, and report loudly what was skipped (moved aside, not deleted).", visibility: .hidden))
    var recover = false
    @Flag(name: .customLong("no-journal-preallocation"),
          help: ArgumentHelp("Grow each journal segment as records are appended, instead of writing it full of zeros ahead (in the background) and writing records over them, which spares every fsync the file's metadata. For copy-on-write file systems (btrfs, ZFS), where writing over zeros gains nothing.", visibility: .hidden))
    var noJournalPreallocation = false
    @Option(help: ServeCommand.help("listen")) var listen: String?
    @Option(name: .customLong("sink"), help: ServeCommand.help("sink")) var sinks: [String] = []
    @Option(name: .customLong("input"), help: ServeCommand.help("input")) var inputs: [String] = []
    @Option(name: .customLong("cors-origin"), help: ServeCommand.help("http.corsOrigin")) var corsOrigins: [String] = []
    @Option(help: ServeCommand.help("bluetooth")) var bluetooth: String?
    @Option(help: ServeCommand.help("bluetoothBackend")) var backend: String?
    @Option(help: ServeCommand.help("tokenFile")) var tokenFile: String?
    @Option(help: ServeCommand.help("maxBodyBytes")) var maxBodyBytes: Int?
    @Option(help: ServeCommand.help("http.headerTimeout")) var httpHeaderTimeout: Double?
    @Option(help: ServeCommand.help("http.bodyTimeout")) var httpBodyTimeout: Double?
    @Option(help: ServeCommand.help("http.idleTimeout")) var httpIdleTimeout: Double?
    @Option(help: ServeCommand.help("http.maxConnections")) var httpMaxConnections: Int?
    @Option(help: ServeCommand.help("http.maxConnectionsPerAddress")) var httpMaxConnectionsPerAddress: Int?
    @Option(help: ServeCommand.help("http.drainTimeout")) var httpDrainTimeout: Double?
    @Option(help: ServeCommand.help("http.eventLoops")) var httpEventLoops: Int?
    @Option(help: ServeCommand.help("tls.certificate")) var tlsCertificate: String?
    @Option(help: ServeCommand.help("tls.key")) var tlsKey: String?
    @Option(help: ServeCommand.help("clock")) var clock: String?
    @Option(help: ServeCommand.help("allowedLateness")) var allowedLateness: Double?
    @Option(help: ServeCommand.help("maxFuture")) var maxFuture: Double?
    @Option(help: ServeCommand.help("deviceRetention")) var deviceRetention: String?
    @Option(help: ServeCommand.help("deviceRetentionExits")) var deviceRetentionExits: String?
    @Option(help: ServeCommand.help("explainDepth")) var explainDepth: Int?
    @Option(help: ServeCommand.help("console")) var console: String?
    @Flag(name: .customLong("no-console"), help: ArgumentHelp("Do not serve the operator console (the same as --console off).", visibility: .hidden)) var noConsole = false
    @Option(help: ServeCommand.help("console.tiles")) var consoleTiles: String?
    @Option(help: ServeCommand.help("console.tilesAttribution")) var consoleTilesAttribution: String?
    @Option(help: ServeCommand.help("logLevel")) var logLevel: String?
    @Option(help: ServeCommand.help("logFormat")) var logFormat: String?
    @Option(help: ServeCommand.help("webhook.batch")) var webhookBatch: Int?
    @Option(help: ServeCommand.help("webhook.secretFile")) var webhookSecretFile: String?
    @Option(help: ServeCommand.help("webhook.signatureHeader")) var webhookSignatureHeader: String?
    @Option(help: ServeCommand.help("webhook.timeout")) var webhookTimeout: Double?
    @Option(help: ServeCommand.help("webhook.concurrency")) var webhookConcurrency: Int?
    @Option(help: ServeCommand.help("retry.initial")) var retryInitial: Double?
    @Option(name: .customLong("retry-max"), help: ServeCommand.help("retry.maximum")) var retryMaximum: Double?
    @Option(help: ServeCommand.help("outbox.maxEntries")) var outboxMaxEntries: Int?
    @Option(help: ServeCommand.help("outbox.maxAge")) var outboxMaxAge: Double?
    @Option(help: ServeCommand.help("ndjson.rotateBytes")) var ndjsonRotateBytes: Int?
    @Option(help: ServeCommand.help("ndjson.keep")) var ndjsonKeep: Int?
    @Option(help: ServeCommand.help("ndjson.linger")) var ndjsonLinger: Double?

    /// The flags given, by setting key.
    var flags: [String: ServeSettings.FlagValue] {
        var f: [String: ServeSettings.FlagValue] = [:]
        func put(_ key: String, _ value: String?) { if let value { f[key] = .string(value) } }
        put("database", database)
        put("regions", regions)
        put("regionsIdProperty", regionsIdProperty)
        put("listen", listen)
        put("journal", journal)
        if !sinks.isEmpty { f["sink"] = .strings(sinks) }
        if !inputs.isEmpty { f["input"] = .strings(inputs) }
        if !corsOrigins.isEmpty { f["http.corsOrigin"] = .strings(corsOrigins) }
        put("bluetooth", bluetooth)
        put("bluetoothBackend", backend)
        put("tokenFile", tokenFile)
        if let maxBodyBytes { f["maxBodyBytes"] = .integer(maxBodyBytes) }
        if let explainDepth { f["explainDepth"] = .integer(explainDepth) }
        put("tls.certificate", tlsCertificate)
        put("tls.key", tlsKey)
        put("clock", clock)
        put("logLevel", logLevel)
        put("deviceRetention", deviceRetention)
        put("console", noConsole ? "off" : console)
        put("console.tiles", consoleTiles)
        put("console.tilesAttribution", consoleTilesAttribution)
        put("deviceRetentionExits", deviceRetentionExits)
        put("logFormat", logFormat)
        func put(_ key: String, _ value: Int?) { if let value { f[key] = .integer(value) } }
        func put(_ key: String, _ value: Double?) { if let value { f[key] = .number(value) } }
        put("http.headerTimeout", httpHeaderTimeout)
        put("http.bodyTimeout", httpBodyTimeout)
        put("http.idleTimeout", httpIdleTimeout)
        put("http.maxConnections", httpMaxConnections)
        put("http.maxConnectionsPerAddress", httpMaxConnectionsPerAddress)
        put("http.drainTimeout", httpDrainTimeout)
        put("http.eventLoops", httpEventLoops)
        put("webhook.batch", webhookBatch)
        put("webhook.secretFile", webhookSecretFile)
        put("webhook.signatureHeader", webhookSignatureHeader)
        put("webhook.timeout", webhookTimeout)
        put("webhook.concurrency", webhookConcurrency)
        put("retry.initial", retryInitial)
        put("retry.maximum", retryMaximum)
        put("outbox.maxEntries", outboxMaxEntries)
        put("outbox.maxAge", outboxMaxAge)
        put("ndjson.rotateBytes", ndjsonRotateBytes)
        put("ndjson.keep", ndjsonKeep)
        put("ndjson.linger", ndjsonLinger)
        put("allowedLateness", allowedLateness)
        put("maxFuture", maxFuture)
        put("journal.segmentBytes", journalSegmentBytes)
        put("journal.sync", sync)
        put("checkpoint.interval", checkpointInterval)
        put("checkpoint.records", checkpointRecords)
        put("checkpoint.inputs", checkpointInputs)
        put("cluster.instance", instance)
        put("cluster.partitions", partitions)
        put("cluster.replicas", replicas)
        put("cluster.leaseTTL", leaseTtl)
        put("cluster.sessionTimeout", sessionTimeout)
        return f
    }

    func run() async throws {
        if helpAll {
            print(Self.helpMessage(includeHidden: true))
            print(Self.settingsTable, terminator: "")
            return
        }
        let settings: ServeSettings.Resolved
        do {
            settings = try await ServeSettings.resolve(flags: flags, environment: ProcessInfo.processInfo.environment, configFile: config)
        } catch {
            FileHandle.standardError.write("geotrigger serve: \(error)\n".data(using: .utf8)!)
            throw ExitCode(2)
        }
        let level = settings.logLevel, format = settings.logFormat, environment = ProcessInfo.processInfo.environment
        LoggingSystem.bootstrap { label in ServeLogHandler(label: label, format: format, level: level, environment: environment) }
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // A batch's evaluation and commit take micro- to milliseconds: the default buckets start at 5 ms.
        let fine: [Duration] = [.microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                                .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                                .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                                .seconds(1), .seconds(5)]
        factory.durationHistogramBuckets["geotrigger_evaluation_seconds"] = fine
        factory.durationHistogramBuckets["geotrigger_journal_durable_seconds"] = fine
        MetricsSystem.bootstrap(factory)
        let logger = Logger(label: "geotrigger.serve")
        for (key, origin) in settings.origins.sorted(by: { $0.key < $1.key }) where key != "token" {
            logger.debug("setting", metadata: ["key": "\(key)", "from": "\(origin)"])
        }

        let configuration = { var c = settings.configuration; c.recover = recover; c.journalPreallocate = !noJournalPreallocation; return c }()
        if let log = configuration.clusterLog {
            try await runCluster(configuration, log: log, bluetooth: settings.bluetoothAdapter, logger: logger,
                                 metricsText: { registry.emitToBuffer() })
            return
        }
        let server: GeoTriggerServer
        var inputs: [any Service] = []
        do {
            // The adapter first: a start that cannot scan stops before the database and journal are created.
            var bluetooth: BluetoothInput.Opened?
            if let adapter = settings.bluetoothAdapter {
                guard let backend = BluetoothBackend(rawValue: settings.bluetoothBackend) else {
                    throw ServerConfigurationError(reason: "\(settings.origins["bluetoothBackend"] ?? "bluetoothBackend"): "
                        + "unknown backend '\(settings.bluetoothBackend)': use auto, dbus or hci")
                }
                do {
                    bluetooth = try BluetoothInput.open(adapter: adapter, backend: backend, logger: logger)
                } catch {
                    throw ServerConfigurationError(reason: "cannot scan with Bluetooth adapter \(adapter): \(error); or leave out --bluetooth")
                }
            }
            server = try GeoTriggerServer(configuration: configuration, logger: logger, metricsText: { registry.emitToBuffer() })
            if let bluetooth { inputs.append(BluetoothInput(bluetooth, host: server.host, logger: logger)) }
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(2)
        }
        let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
        try await server.run(inputs: inputs, onServerRunning: { port in
            logger.notice("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)", "scheme": "\(scheme)"])
        })
    }

    /// `--journal nats://…` or `kafka://…`: one instance of a scale-out deployment (docs/cluster.md).
    func runCluster(_ configuration: ServerConfiguration, log: (transport: ClusterConfiguration.Transport, servers: [String]), bluetooth: String?, logger: Logger,
                    metricsText: @escaping @Sendable () -> [UInt8]) async throws {
        let server: ClusterServer
        do {
            if !configuration.sinks.isEmpty || !configuration.inputs.isEmpty || bluetooth != nil {
                throw ServerConfigurationError(reason: "--sink, --input and --bluetooth are not used with a nats:// or kafka:// journal: inputs arrive over HTTP, and notifications go to the notification stream or topic (docs/cluster.md)")
            }
            let engine = configuration.engineConfiguration
            let instance = configuration.clusterInstance ?? "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
            let cluster = ClusterConfiguration(
                servers: log.servers, instance: instance, partitions: configuration.clusterPartitions, replicas: configuration.clusterReplicas,
                leaseTTL: .milliseconds(Int64(configuration.clusterLeaseTTL * 1000)),
                checkpointInterval: .milliseconds(Int64(configuration.checkpointInterval * 1000)),
                wallClock: configuration.clock == .wall, engine: engine, transport: log.transport,
                sessionTimeout: .milliseconds(Int64(configuration.clusterSessionTimeout * 1000)))
            server = try ClusterServer(configuration: configuration, cluster: cluster, logger: logger, metricsText: metricsText)
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(2)
        }
        try await server.run(onServerRunning: { port in
            logger.notice("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)", "scheme": "http"])
        })
    }
}
