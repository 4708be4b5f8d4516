import Delivery
import Hummingbird
import Logging
import ServiceLifecycle
import Storage

/// `geotrigger serve`: the store, the engine host, the HTTP API and the outbox dispatcher, wired together.
public struct GeoTriggerServer: Sendable {
    public let configuration: ServerConfiguration
    public let host: EngineHost
    let dispatcher: OutboxDispatcher
    let ticker: ClockTicker?
    let metricsText: (@Sendable () -> [UInt8])?
    let logger: Logger

    /// Opens (or creates) the database and restores the engine from it.
    /// - Parameter metricsText: renders `/metrics` (the executable's Prometheus registry); nil answers 404.
    public init(configuration: ServerConfiguration, logger: Logger, metricsText: (@Sendable () -> [UInt8])? = nil) throws {
        try configuration.validate()
        let store = try Store(path: configuration.databasePath, logger: logger)
        self.configuration = configuration
        self.host = try EngineHost(store: store, clock: configuration.clock, logger: logger)
        let sinks = try configuration.sinks.map { sink throws(DeliveryFailure) in try sink.makeSink(configuration.delivery) }
        self.dispatcher = OutboxDispatcher(store: store, sinks: sinks, signal: host.outboxSignal,
                                           configuration: configuration.delivery, logger: logger)
        self.ticker = configuration.clock == .wall ? ClockTicker(host: host, logger: logger) : nil
        self.metricsText = metricsText
        self.logger = logger
    }

    /// The HTTP application, with the outbox dispatcher (and, on wall-clock time, the clock ticker) as services.
    /// - Parameter onServerRunning: receives the bound port (useful with port 0).
    public func makeApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ProblemMiddleware())
        if let token = configuration.token, !token.isEmpty {
            router.add(middleware: BearerTokenMiddleware(token: Array(token.utf8)))
        }
        router.add(middleware: BackPressureMiddleware(pressure: dispatcher.pressure))
        APIRoutes(host: host, store: host.store, limit: configuration.maximumBodyBytes, metricsText: metricsText).register(on: router)
        OutboxRoutes(store: host.store, dispatcher: dispatcher, signal: host.outboxSignal).register(on: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "geotrigger"),
            services: [dispatcher] + (ticker.map { [$0] } ?? []),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
