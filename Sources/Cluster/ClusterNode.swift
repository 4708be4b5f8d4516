import Foundation
import Logging
import ServiceLifecycle

/// One instance of a scale-out deployment: the gateway that accepts inputs for any device, the follower of the
/// requests log, and the partitions it owns (through leases on JetStream, through the consumer group on Kafka).
/// Runs until graceful shutdown, then hands its partitions over (each checkpointed) so the others take them
/// without replaying.
public final class ClusterNode: Service, Sendable {
    public let configuration: ClusterConfiguration
    public let gateway: ClusterGateway
    let ownership: any PartitionOwnership
    let logger: Logger

    /// Connects, creates the streams or topics when absent, and starts reading the requests log.
    public init(configuration: ClusterConfiguration, logger: Logger) throws {
        guard configuration.partitions >= 1, configuration.partitions <= 4096 else {
            throw ClusterError.invalid("partitions must be 1…4096, got \(configuration.partitions)")
        }
        self.configuration = configuration
        self.logger = logger
        let names = ClusterNames(prefix: configuration.prefix)
        let metrics = ClusterMetrics()
        let parts = switch configuration.transport {
        case .jetStream: try Self.jetStream(configuration, names: names, metrics: metrics, logger: logger)
        case .kafka: try Self.kafka(configuration, names: names, metrics: metrics, logger: logger)
        }
        gateway = parts.gateway
        ownership = parts.ownership
        let requests = gateway.requests
        let thread = Thread { requests.run() }
        thread.name = "requests follower"
        thread.start()
    }

    /// The partitions this instance evaluates now.
    public var ownedPartitions: [Int] { ownership.owned }

    /// Partitions this instance no longer owns whose workers are still winding down.
    public var stoppingPartitions: [Int] { ownership.stopping }

    /// Nil while the log is reachable.
    public var failureReason: String? { gateway.log.failureReason }

    public func run() async throws {
        ownership.start()
        logger.notice("cluster instance joined", metadata: [
            "instance": "\(configuration.instance)", "partitions": "\(configuration.partitions)", "servers": "\(configuration.servers)",
            "log": "\(configuration.transport == .kafka ? "kafka" : "jetstream")"])
        try? await gracefulShutdown()
        let ownership = self.ownership
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let t = Thread { ownership.stop(); c.resume() }
            t.start()
        }
        gateway.requests.stop()
        logger.notice("cluster instance left")
    }
}
