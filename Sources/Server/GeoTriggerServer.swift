import Sinks
import SystemErrors
import Inputs
#if canImport(Glibc)
import Glibc
#endif
import Delivery
import Host
import Hummingbird
import NIOPosix
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Storage
import SystemdNotify
import UnixSignals

/// `geotrigger serve`: the store, the engine host, the HTTP API, the stream inputs and the outbox dispatcher, wired
/// together.
public struct GeoTriggerServer: Sendable {
    public let configuration: ServerConfiguration
    public let host: EngineHost
    let log: FileHostLog
    let dispatcher: OutboxDispatcher
    let ticker: ClockTicker?
    let checkpoints: CheckpointScheduler
    let tls: TLSConfiguration?
    /// `configuration.host` resolved, checked and bound as this numeric address.
    let listenAddress: SocketAddress
    let metricsText: (@Sendable () -> [UInt8])?
    let logger: Logger
    /// The HTTP connections open, by client address (per-address bound, drain deadline).
    let connections: OpenConnections
    /// `--regions`, and its requests as read and checked before anything was opened.
    public let regions: RegionsFile?
    let regionEntries: RegionsFile.Contents
    /// The configured token and the credentials stored in the database.
    public let credentials: Credentials

    /// Opens (or creates) the database and restores the engine from it.
    /// - Parameter metricsText: renders `/metrics` (the executable's Prometheus registry); nil answers 404.
    public init(configuration: ServerConfiguration, logger: Logger, metricsText: (@Sendable () -> [UInt8])? = nil) throws {
        try configuration.validate()
        self.listenAddress = try configuration.listenAddress()
        // Certificates and addresses first: a bad one must fail before the database is touched.
        self.tls = try Self.loadTLS(configuration)
        try Self.checkAvailable(listenAddress, name: "the API on \(configuration.host):\(configuration.port)")
        for case .tcp(let host, let port, _) in configuration.inputs {
            try Self.checkAvailable(try ServerConfiguration.resolve(host, port: port, what: "the TCP input"),
                                    name: "the TCP input on \(host):\(port)")
        }
        // The regions file and the folders next: nothing is created on disk until every check has passed.
        self.regions = configuration.regionsFilePath.map { RegionsFile(path: $0, databasePath: configuration.databasePath, geoJSON: configuration.regionsGeoJSON) }
        self.regionEntries = try regions?.read() ?? RegionsFile.Contents(entries: [], groups: [:])
        if let problem = Self.folderProblem(configuration.databasePath) {
            throw ServerConfigurationError(reason: "cannot open the database \(configuration.databasePath): \(problem)")
        }
        if let problem = Self.folderProblem(configuration.effectiveJournalPath) {
            throw ServerConfigurationError(reason: "cannot open the journal \(configuration.effectiveJournalPath): \(problem)")
        }
        // Sinks before the database: a sink that cannot be opened stops the start before the database exists.
        let sinks = try configuration.sinks.map { sink throws(DeliveryFailure) in try sink.makeSink(configuration.delivery) }
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: configuration.databasePath, logger: logger)
        } catch {
            throw ServerConfigurationError(reason: "cannot open the database \(configuration.databasePath): \(Self.folderProblem(configuration.databasePath) ?? "\(error)")")
        }
        self.configuration = configuration
        // The sinks' cursors name journal records that were durable: the journal must reach past the highest.
        let knownEnd = try store.sinkCursors().compactMap { sink, cursor in
            JournalOutbox.position(of: cursor).map { (position: $0 + 1, source: "the cursor of sink \(sink) in \(configuration.databasePath)") }
        }.max { $0.position < $1.position }
        do {
            self.log = try FileHostLog(directory: configuration.effectiveJournalPath, segmentBytes: configuration.journalSegmentBytes,
                                      recover: configuration.recover, preallocate: configuration.journalPreallocate,
                                      knownEnd: knownEnd, sync: configuration.journalSync, logger: logger)
        } catch {
            // Only damage is for --recover; a folder that cannot be read or written needs its permissions fixed.
            let hint = if case .damaged = error, !configuration.recover {
                "; start once with --recover to skip what cannot be read (it reports every skipped record range)"
            } else { "" }
            throw ServerConfigurationError(reason: "cannot open the journal \(configuration.effectiveJournalPath): \(error)\(hint)")
        }
        self.credentials = try Credentials(store: store, token: configuration.effectiveToken)
        self.host = try EngineHost(store: store, log: log, configuration: configuration.engineConfiguration,
                                   sinks: sinks.map(\.sink.name), recover: configuration.recover, logger: logger)
        self.checkpoints = CheckpointScheduler(host: host, interval: .milliseconds(Int64(configuration.checkpointInterval * 1000)),
                                               recordLimit: UInt64(configuration.checkpointRecords),
                                               inputLimit: UInt64(configuration.checkpointInputs), logger: logger)
        self.dispatcher = OutboxDispatcher(store: store, outbox: host.outbox, sinks: sinks, signal: host.outboxSignal,
                                           configuration: configuration.delivery, logger: logger)
        self.ticker = configuration.clock == .wall ? ClockTicker(host: host, logger: logger) : nil
        self.metricsText = metricsText
        self.logger = logger
        self.connections = OpenConnections(perAddress: configuration.connections.maximumConnectionsPerAddress)
        if connectionLimit < configuration.connections.maximumConnections {
            logger.warning("http.maxConnections lowered below the descriptor limit", metadata: [
                "configured": "\(configuration.connections.maximumConnections)", "effective": "\(connectionLimit)"])
        }
    }

    /// `http.maxConnections`, lowered below the process's descriptor limit: the database, the sinks and the
    /// inputs need descriptors too, and a server out of descriptors cannot even answer a health probe.
    var connectionLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else {
            return configuration.connections.maximumConnections
        }
        let available = max(1, Int(clamping: limit.rlim_cur) - Self.reservedDescriptors)
        return min(configuration.connections.maximumConnections, available)
    }

    /// Descriptors kept for everything but HTTP connections.
    static let reservedDescriptors = 64

    /// Fails when `address` cannot be bound (a port in use, an address not on this machine), naming it: the
    /// listener binds only once the engine is restored, and its error would name neither.
    static func checkAvailable(_ address: SocketAddress, name: String) throws(ServerConfigurationError) {
        guard address.port != 0 else { return }
        let family: Int32 = switch address { case .v6: AF_INET6; default: AF_INET }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let rc = address.withSockAddr { bind(fd, $0, socklen_t($1)) }
        if rc != 0 {
            let code = errno
            throw ServerConfigurationError(reason: "cannot listen for \(name) (\(address)): \(SystemError.text(code)) (errno \(code))")
        }
    }

    /// Why nothing can be created at `path`, when it is its folder: missing, not a folder, or not writable by this
    /// user (and `path` itself does not exist yet or is not writable either), with what to do.
    static func folderProblem(_ path: String) -> String? {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        var st = stat()
        if stat(folder, &st) != 0 { return "its folder \(folder) does not exist; create it or choose another path" }
        if st.st_mode & S_IFMT != S_IFDIR { return "\(folder) is not a folder" }
        if access(path, F_OK) == 0 {
            if access(path, W_OK) != 0 { return "\(path) is not writable by user \(getuid()); fix its owner or mode" }
        } else if access(folder, W_OK) != 0 {
            return "its folder \(folder) is not writable by user \(getuid()); fix its owner or mode, or choose another path"
        }
        return nil
    }

    static func loadTLS(_ configuration: ServerConfiguration) throws -> TLSConfiguration? {
        guard let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath else { return nil }
        let chain: [NIOSSLCertificateSource]
        let privateKey: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
        } catch {
            throw ServerConfigurationError(reason: "cannot read the TLS certificate \(certificate) (PEM expected): \(error)")
        }
        guard !chain.isEmpty else { throw ServerConfigurationError(reason: "the TLS certificate file \(certificate) holds no PEM certificate") }
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw ServerConfigurationError(reason: "cannot read the TLS private key \(key) (PEM expected): \(error)")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
    }

    /// Every route of the API, behind the problem and credential middleware, each behind the scope it needs.
    public func makeRouter() -> Router<APIContext> {
        let router = Router(context: APIContext.self)
        if !configuration.corsOrigins.isEmpty { router.add(middleware: CORSPolicy(origins: configuration.corsOrigins)) }
        router.add(middleware: ProblemMiddleware())
        router.add(middleware: CredentialMiddleware(credentials: credentials))
        APIRoutes(host: host, store: host.store, limit: configuration.maximumBodyBytes, pressure: dispatcher.pressure,
                  metricsText: metricsText).register(on: router, credentials: credentials)
        OutboxRoutes(store: host.store, dispatcher: dispatcher, signal: host.outboxSignal, feeder: host.feeder)
            .register(read: router.group("v1").add(middleware: ScopeMiddleware(access: .read)),
                      admin: router.group("v1").add(middleware: ScopeMiddleware(access: .admin)))
        StreamRoutes(host: host).register(read: router.group("v1").add(middleware: ScopeMiddleware(access: .ownDeviceRead)))
        RegionRoutes(store: host.store).register(read: router.group("v1").add(middleware: ScopeMiddleware(access: .read)))
        if configuration.console {
            ConsoleRoutes(tiles: configuration.consoleTiles, attribution: configuration.consoleTilesAttribution)
                .register(read: router.group().add(middleware: ScopeMiddleware(access: .read)))
        }
        return router
    }

    /// The HTTP application with the outbox dispatcher (and, on wall-clock time, the clock ticker) as its services:
    /// what the tests run. `run` is the executable's, with inputs and the ordered shutdown.
    /// - Parameter onServerRunning: receives the bound port (useful with port 0).
    /// Closes the database and the journal, as `run` does last. For a server run through `makeApplication` (the
    /// tests), once its application has returned: otherwise their descriptors stay open until the process ends.
    public func closeStorage() throws {
        try host.store.close()
        log.close()
    }

    /// Runs `body` (typically the application from `makeApplication`), then `closeStorage`, whether `body` threw
    /// or not.
    public func closingStorage<T>(after body: () async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            try? closeStorage()
            throw error
        }
        try closeStorage()
        return result
    }

    /// The threads serving connections (`http.eventLoops`).
    var eventLoops: MultiThreadedEventLoopGroup {
        SharedEventLoops.group(threads: configuration.connections.eventLoopCount(tls: tls != nil))
    }

    public func makeApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        try application(services: [host.feeder, checkpoints, dispatcher] + (ticker.map { [$0] } ?? []), onServerRunning: onServerRunning)
    }

    private func application(services: [any Service], onServerRunning: @escaping @Sendable (Int) async -> Void) throws -> some ApplicationProtocol {
        let limits = configuration.connections, logger = logger, connections = connections
        let http1 = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [
            ConnectionGuard(limits: limits, connections: connections, logger: logger)]))
        return Application(
            router: makeRouter(),
            server: try tls.map { tls throws -> HTTPServerBuilder in try .tls(http1, tlsConfiguration: tls) } ?? http1,
            // The numeric address the loopback check saw: a name is not resolved a second time.
            configuration: .init(address: .hostname(listenAddress.ipAddress ?? configuration.host, port: configuration.port),
                                 serverName: "geotrigger",
                                 availableConnectionsDelegate: MaximumAvailableConnections(connectionLimit, logger: logger)),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            eventLoopGroupProvider: .shared(eventLoops),
            logger: logger)
    }

    /// Serves until SIGTERM or SIGINT, then shuts down in order: stop intake (new fixes and sightings get 503),
    /// stop the inputs, let the HTTP requests in flight finish (their batches commit), stop the ticker and the
    /// dispatcher, deliver what the outbox still holds, close the database.
    /// - Parameters:
    ///   - inputs: further inputs (the Bluetooth scanner); like `--input`s, one that ends leaves the server running.
    ///   - onInputListening: a TCP input's bound port.
    public func run(inputs extra: [any Service] = [],
                    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                    onInputListening: @escaping @Sendable (InputConfiguration, Int) async -> Void = { _, _ in }) async throws {
        if let regions { try await regions.apply(regionEntries, to: host, logger: logger) }
        let host = host, address = configuration.host
        let app = try application(services: [], onServerRunning: { port in
            await onServerRunning(port)
            SystemdNotifier.ready(status: "listening on \(address):\(port); \(host.restored.replayed) journal records replayed at start")
        })
        // ServiceGroup shuts services down last to first, each after the one before it has returned.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: host.feeder, serviceName: "outbox feeder"),
            .init(service: checkpoints, serviceName: "checkpoints"),
            .init(service: dispatcher, serviceName: "outbox dispatcher"),
        ]
        if let ticker { services.append(.init(service: ticker, serviceName: "clock ticker")) }
        services.append(.init(service: app, serviceName: "HTTP server"))
        let streams: [any Service] = configuration.inputs.map { input in
            StreamInput(input: input, host: host, logger: logger, onListening: { port in await onInputListening(input, port) })
        }
        for (k, input) in (streams + extra).enumerated() {
            services.append(.init(service: InputLifetime(input: input), successTerminationBehavior: .ignore,
                                  failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "input \(k)"))
        }
        services.append(.init(service: RegionsReloader(regions: regions, host: host, logger: logger), serviceName: "regions reloader"))
        services.append(.init(service: IntakeGate(host: host, connections: connections, drainTimeout: configuration.connections.drainTimeout,
                                                  logger: logger), serviceName: "intake gate"))
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let watchdog = SystemdNotifier.watchdogInterval.map { interval in
            Task { [host, logger] in
                await SystemdWatchdog(interval: interval, progress: { await Self.engineMakesProgress(host, logger: logger) }).run()
            }
        }
        defer { watchdog?.cancel() }
        var failure: (any Error)?
        do { try await group.run() } catch { failure = error }
        // Every service has returned: nothing evaluates or writes the journal any more.
        logger.notice("shutdown: inputs, HTTP server and clock stopped; every answered batch is in the journal")
        await host.writeHeldTick()
        await host.drainWrites()
        if await host.feeder.feedPending() { logger.notice("shutdown: every journaled notification is in the outbox") }
        do {
            if try await host.checkpoint() != nil { logger.notice("shutdown: checkpoint written; the next start replays nothing") }
        } catch {
            logger.error("shutdown: the final checkpoint failed; the next start replays the journal", metadata: ["error": "\(error)"])
        }
        let delivered = await dispatcher.drain()
        if delivered {
            logger.notice("shutdown: outbox flushed to every sink")
        } else {
            logger.error("shutdown: some sink failed; its undelivered notifications stay in the journal and are delivered after the next start")
        }
        do {
            try closeStorage()
            logger.notice("shutdown: database and journal closed")
        } catch {
            logger.error("shutdown: closing the database failed", metadata: ["error": "\(error)"])
            failure = failure ?? error
        }
        if let failure { throw failure }
    }
}

extension GeoTriggerServer {
    /// What feeds systemd's watchdog: a round trip through the engine's actor (its jobs run on the engine's thread,
    /// so a wedged thread never answers), answered healthy. A host that refuses changes after a journal failure
    /// waits for a restart (`failureReason`), so the watchdog lets systemd give it one.
    static func engineMakesProgress(_ host: EngineHost, logger: Logger) async -> Bool {
        guard let reason = await host.failureReason else { return true }
        logger.critical("watchdog: not pinged; the engine refuses changes until a restart", metadata: ["reason": "\(reason)"])
        return false
    }
}

/// Keeps an input that ended (standard input closed) in the group until shutdown: ServiceGroup takes a service that
/// returns while it shuts another down for a failure, and the exit code would say so.
struct InputLifetime: Service {
    let input: any Service

    func run() async throws {
        try await input.run()
        try? await gracefulShutdown()
    }
}

/// The first service to hear of a graceful shutdown: it closes the engine's intake before anything else stops, and
/// starts the drain deadline: connections still open when it passes are closed, so the HTTP server's wait for
/// requests in flight (a client trickling a body) is bounded.
struct IntakeGate: Service {
    let host: EngineHost
    let connections: OpenConnections
    let drainTimeout: Duration
    let logger: Logger

    func run() async throws {
        // Returns on graceful shutdown; throws on cancellation, when there is nothing left to close in order.
        try await gracefulShutdown()
        SystemdNotifier.stopping(status: "draining: intake stopped, delivering the outbox")
        await host.closeIntake()
        // Event streams never end on their own: told now, they do not hold the HTTP server's drain open.
        host.stream.close()
        logger.notice("shutdown: intake stopped; new fixes and sightings are refused with 503")
        let connections = connections, drainTimeout = drainTimeout, logger = logger
        // Not a child of this service: the deadline must outlive its return, which lets the shutdown go on.
        Task.detached {
            try? await Task.sleep(for: drainTimeout)
            let closed = connections.closeAll()
            if closed > 0 {
                logger.notice("shutdown: drain deadline passed; closed the connections still open", metadata: [
                    "connections": "\(closed)", "drainTimeout": "\(drainTimeout)"])
            }
        }
    }
}
