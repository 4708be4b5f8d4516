import Foundation
import Logging
import NATS

extension ClusterNode {
    /// The JetStream path: streams created when absent, the requests stream through a pull consumer, leases.
    static func jetStream(_ configuration: ClusterConfiguration, names: ClusterNames, metrics: ClusterMetrics,
                          logger: Logger) throws -> (gateway: ClusterGateway, ownership: any PartitionOwnership) {
        // Every call in the cluster path is bounded below the lease TTL: a batch whose parts JetStream does not
        // acknowledge within it is answered 503 (the client sends it again) rather than held.
        let connection = try NATSConnection(servers: configuration.servers, name: "\(configuration.instance) gateway",
                                            apiWait: configuration.workerCallBound)
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
        let requests = RequestsFollower(logger: logger) { sequence in
            JetStreamRequestsReader(consumer: try PullConsumer(connection: connection, stream: names.requestsStream, subject: names.requestsSubject,
                                                               from: sequence))
        }
        let gateway = ClusterGateway(log: JetStreamInputLog(connection: connection, names: names, partitions: configuration.partitions, logger: logger),
                                     requests: requests, logger: logger)
        let leases = JetStreamLeases(configuration: configuration, names: names, requests: requests, metrics: metrics, logger: logger)
        return (gateway, leases)
    }
}
