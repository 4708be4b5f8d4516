import Foundation
import Logging
import NATS
import ServiceLifecycle

/// One instance of a scale-out deployment: the gateway that accepts inputs for any device, the follower of the
/// requests stream, and the partitions it owns through leases. Runs until graceful shutdown, then hands its
/// partitions over (each checkpointed, its lease deleted) so the others take them without replaying.
public final class ClusterNode: Service, Sendable {
    public let configuration: ClusterConfiguration
    public let gateway: ClusterGateway
    let names: ClusterNames
    let leases: PartitionLeases
    let logger: Logger

    /// Connects, creates the streams when absent, and starts reading the requests stream.
    public init(configuration: ClusterConfiguration, logger: Logger) throws {
        guard configuration.partitions >= 1, configuration.partitions <= 4096 else {
            throw ClusterError.invalid("partitions must be 1…4096, got \(configuration.partitions)")
        }
        self.configuration = configuration
        self.logger = logger
        names = ClusterNames(prefix: configuration.prefix)
        let connection = try NATSConnection(servers: configuration.servers, name: "\(configuration.instance) gateway")
        // A takeover publishes again what the last owner published after its checkpoint: the window must cover that.
        let window = max(.seconds(120), (configuration.checkpointInterval + configuration.leaseTTL) * 10)
        // A cluster electing a leader (a node just restarted) answers after a while: wait for it, within reason.
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                try names.ensureStreams(on: connection, partitions: configuration.partitions, replicas: configuration.replicas, duplicateWindow: window)
                break
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
                logger.warning("JetStream streams not ready; trying again", metadata: ["error": "\(error)"])
                Thread.sleep(forTimeInterval: 1)
            }
        }
        let requests = RequestsFollower(connection: connection, names: names, logger: logger)
        gateway = ClusterGateway(connection: connection, names: names, partitions: configuration.partitions, requests: requests, logger: logger)
        let metrics = ClusterMetrics()
        leases = PartitionLeases(configuration: configuration, names: names, requests: requests, metrics: metrics, logger: logger)
        let thread = Thread { requests.run() }
        thread.name = "requests follower"
        thread.start()
    }

    /// The partitions this instance evaluates now.
    public var ownedPartitions: [Int] { leases.ownedNow.withLock { $0 } }

    /// Nil while JetStream is reachable.
    public var failureReason: String? {
        gateway.connection.isConnected ? nil : "not connected to JetStream (\(configuration.servers.joined(separator: ",")))"
    }

    public func run() async throws {
        leases.start()
        logger.notice("cluster instance joined", metadata: [
            "instance": "\(configuration.instance)", "partitions": "\(configuration.partitions)", "servers": "\(configuration.servers)"])
        try? await gracefulShutdown()
        let leases = self.leases
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let t = Thread { leases.stop(); c.resume() }
            t.start()
        }
        gateway.requests.stop()
        logger.notice("cluster instance left")
    }
}
