import Delivery
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL
import ServiceLifecycle
import Storage

/// `geotrigger serve`: the store, the engine host, the HTTP API, the stream inputs and the outbox dispatcher, wired
/// together.
public struct GeoTriggerServer: Sendable {
    public let configuration: ServerConfiguration
    public let host: EngineHost
    let dispatcher: OutboxDispatcher
    let ticker: ClockTicker?
    let tls: TLSConfiguration?
    let metricsText: (@Sendable () -> [UInt8])?
    let logger: Logger

    /// Opens (or creates) the database and restores the engine from it.
    /// - Parameter metricsText: renders `/metrics` (the executable's Prometheus registry); nil answers 404.
    public init(configuration: ServerConfiguration, logger: Logger, metricsText: (@Sendable () -> [UInt8])? = nil) throws {
        try configuration.validate()
        // Certificates first: a bad one must fail before the database is touched.
        self.tls = try Self.loadTLS(configuration)
        let store = try Store(path: configuration.databasePath, logger: logger)
        self.configuration = configuration
        self.host = try EngineHost(store: store, configuration: configuration.engineConfiguration, logger: logger)
        let sinks = try configuration.sinks.map { sink throws(DeliveryFailure) in try sink.makeSink(configuration.delivery) }
        self.dispatcher = OutboxDispatcher(store: store, sinks: sinks, signal: host.outboxSignal,
                                           configuration: configuration.delivery, logger: logger)
        self.ticker = configuration.clock == .wall ? ClockTicker(host: host, logger: logger) : nil
        self.metricsText = metricsText
        self.logger = logger
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

    /// Every route of the API, behind the problem and (when a token is set) bearer-token middleware.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ProblemMiddleware())
        if let token = configuration.token, !token.isEmpty {
            router.add(middleware: BearerTokenMiddleware(token: Array(token.utf8)))
        }
        router.add(middleware: BackPressureMiddleware(pressure: dispatcher.pressure))
        APIRoutes(host: host, store: host.store, limit: configuration.maximumBodyBytes, metricsText: metricsText).register(on: router)
        OutboxRoutes(store: host.store, dispatcher: dispatcher, signal: host.outboxSignal).register(on: router)
        return router
    }

    /// The HTTP application with the outbox dispatcher (and, on wall-clock time, the clock ticker) as its services:
    /// what the tests run. `run` is the executable's, with inputs and the ordered shutdown.
    /// - Parameter onServerRunning: receives the bound port (useful with port 0).
    public func makeApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        try application(services: [dispatcher] + (ticker.map { [$0] } ?? []), onServerRunning: onServerRunning)
    }

    private func application(services: [any Service], onServerRunning: @escaping @Sendable (Int) async -> Void) throws -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            server: try tls.map { tls throws -> HTTPServerBuilder in try .tls(.http1(), tlsConfiguration: tls) } ?? .http1(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "geotrigger"),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
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
        let app = try application(services: [], onServerRunning: onServerRunning)
        // ServiceGroup shuts services down last to first, each after the one before it has returned.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: dispatcher, serviceName: "outbox dispatcher")]
        if let ticker { services.append(.init(service: ticker, serviceName: "clock ticker")) }
        services.append(.init(service: app, serviceName: "HTTP server"))
        let streams: [any Service] = configuration.inputs.map { input in
            StreamInput(input: input, host: host, logger: logger, onListening: { port in await onInputListening(input, port) })
        }
        for (k, input) in (streams + extra).enumerated() {
            services.append(.init(service: InputLifetime(input: input), successTerminationBehavior: .ignore,
                                  failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "input \(k)"))
        }
        services.append(.init(service: IntakeGate(host: host, logger: logger), serviceName: "intake gate"))
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        var failure: (any Error)?
        do { try await group.run() } catch { failure = error }
        // Every service has returned: nothing evaluates or commits any more.
        logger.notice("shutdown: inputs, HTTP server and clock stopped; every answered batch is committed")
        let delivered = await dispatcher.drain()
        if delivered {
            logger.notice("shutdown: outbox flushed to every sink")
        } else {
            logger.error("shutdown: some sink failed; its undelivered notifications stay in the outbox for the next start")
        }
        do {
            try host.store.close()
            logger.notice("shutdown: database closed")
        } catch {
            logger.error("shutdown: closing the database failed", metadata: ["error": "\(error)"])
            failure = failure ?? error
        }
        if let failure { throw failure }
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

/// The first service to hear of a graceful shutdown: it closes the engine's intake before anything else stops.
struct IntakeGate: Service {
    let host: EngineHost
    let logger: Logger

    func run() async throws {
        // Returns on graceful shutdown; throws on cancellation, when there is nothing left to close in order.
        try await gracefulShutdown()
        await host.closeIntake()
        logger.notice("shutdown: intake stopped; new fixes and sightings are refused with 503")
    }
}
