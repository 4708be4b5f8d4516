import Foundation
import Kafka
import Logging

extension ClusterNode {
    /// The Kafka path: topics created when absent (and checked), the requests topic through a partition reader,
    /// the consumer group for ownership.
    static func kafka(_ configuration: ClusterConfiguration, names: ClusterNames, metrics: ClusterMetrics,
                      logger: Logger) throws -> (gateway: ClusterGateway, ownership: any PartitionOwnership) {
        let brokers = configuration.servers.joined(separator: ","), instance = configuration.instance
        let producer = try KafkaProducer(brokers: brokers, clientId: "\(instance)-gateway")
        // Brokers still starting answer after a while: wait for them, within reason.
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                try names.ensureTopics(on: producer, partitions: configuration.partitions, replicationFactor: configuration.replicas)
                break
            } catch ClusterError.invalid(let reason) {
                // Topics made for another --partitions: waiting does not help.
                throw ClusterError.invalid(reason)
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
                logger.warning("Kafka topics not ready; trying again", metadata: ["error": "\(error)"])
                Thread.sleep(forTimeInterval: 1)
            }
        }
        let requests = RequestsFollower(logger: logger) { sequence in
            try KafkaRequestsReader(brokers: brokers, instance: instance, names: names, from: sequence)
        }
        let gateway = ClusterGateway(log: KafkaInputLog(producer: producer, names: names, partitions: configuration.partitions),
                                     requests: requests, logger: logger)
        let group = KafkaPartitionGroup(configuration: configuration, names: names, requests: requests, metrics: metrics, logger: logger)
        return (gateway, group)
    }
}
