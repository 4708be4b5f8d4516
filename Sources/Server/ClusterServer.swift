import Cluster
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// `geotrigger serve --journal nats://…` (or `kafka://…`): one instance of a scale-out deployment, the HTTP API of
/// `ClusterRoutes` over a `ClusterNode`. No SQLite file and no local journal: the JetStream or Kafka cluster keeps
/// everything.
public struct ClusterServer: Sendable {
    public let node: ClusterNode
    let configuration: ServerConfiguration
    let listenAddress: SocketAddress
    let metricsText: (@Sendable () -> [UInt8])?
    let logger: Logger

    public init(configuration: ServerConfiguration, cluster: ClusterConfiguration, logger: Logger,
                metricsText: (@Sendable () -> [UInt8])? = nil) throws {
        try configuration.validate()
        listenAddress = try configuration.listenAddress()
        try GeoTriggerServer.checkAvailable(listenAddress, name: "the API on \(configuration.host):\(configuration.port)")
        self.configuration = configuration
        self.metricsText = metricsText
        self.logger = logger
        do {
            node = try ClusterNode(configuration: cluster, logger: logger)
        } catch {
            let kind = cluster.transport == .kafka ? "Kafka" : "JetStream"
            throw ServerConfigurationError(reason: "cannot join the \(kind) cluster \(cluster.servers.joined(separator: ",")): \(error)")
        }
    }

    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ProblemMiddleware())
        if let token = configuration.effectiveToken {
            router.add(middleware: BearerTokenMiddleware(token: Array(token.utf8)))
        }
        ClusterRoutes(node: node, limit: configuration.maximumBodyBytes, metricsText: metricsText).register(on: router)
        return router
    }

    /// Serves until SIGTERM or SIGINT; then the HTTP server stops first (answered batches are in the log) and the
    /// node hands its partitions over.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let app = Application(
            router: makeRouter(),
            server: .http1(),
            configuration: .init(address: .hostname(listenAddress.ipAddress ?? configuration.host, port: configuration.port),
                                 serverName: "geotrigger"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            eventLoopGroupProvider: .shared(SharedEventLoops.group(threads: configuration.connections.eventLoopCount(tls: false))),
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [
            .init(service: node, serviceName: "cluster node"),
            .init(service: app, serviceName: "HTTP server"),
        ], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
