import Foundation
import Kafka
import Logging
import Synchronization

/// Which partitions this instance owns, through a Kafka consumer group on the input topic: the group coordinator
/// spreads the partitions over the live members, and the rebalance callback starts a worker for each partition
/// assigned and stops (checkpointed) each one revoked. A member killed without leaving is dropped after the
/// session timeout and its partitions are assigned to the others; a restarted one rejoins and takes its share back.
final class KafkaPartitionGroup: PartitionOwnership, @unchecked Sendable {
    private let configuration: ClusterConfiguration
    private let names: ClusterNames
    private let requests: RequestsFollower
    private let metrics: ClusterMetrics
    private let logger: Logger
    private let thread = ClusterThread()
    private let ownedNow = Mutex<[Int]>([])
    private let consumer = Mutex<KafkaGroupConsumer?>(nil)
    /// Touched only by the rebalance callback, on the polling thread.
    private var workers: [Int: KafkaPartitionWorker] = [:]

    init(configuration: ClusterConfiguration, names: ClusterNames, requests: RequestsFollower, metrics: ClusterMetrics, logger: Logger) {
        self.configuration = configuration
        self.names = names
        self.requests = requests
        self.metrics = metrics
        self.logger = logger
    }

    var owned: [Int] { ownedNow.withLock { $0 } }

    func start() {
        thread.start("kafka group") { [self] in run() }
    }

    /// Leaves the group: the last revocation checkpoints every partition before the others are given them.
    func stop() {
        thread.stop(.handOver)
    }

    /// librdkafka properties of the group member: the session timeout, heartbeats a third of it.
    var memberSettings: KafkaSettings {
        let session = configuration.sessionTimeout.nanoseconds / 1_000_000
        return KafkaSettings([("session.timeout.ms", "\(session)"), ("heartbeat.interval.ms", "\(max(100, session / 3))")])
    }

    private func run() {
        var member: KafkaGroupConsumer?
        while !thread.stopRequested {
            if member == nil {
                do {
                    member = try KafkaGroupConsumer(
                        brokers: configuration.servers.joined(separator: ","), group: names.consumerGroup, clientId: "\(configuration.instance)-group",
                        topic: names.inputTopic, settings: memberSettings) { [unowned self] event in rebalanced(event) }
                    consumer.withLock { $0 = member }
                } catch {
                    logger.warning("joining the consumer group failed; trying again", metadata: ["error": "\(error)"])
                    Thread.sleep(forTimeInterval: 1)
                    continue
                }
            }
            member!.poll(timeout: .milliseconds(100))
        }
        member?.close()
        for (_, w) in workers { w.stop(checkpoint: true) }
        workers = [:]
        consumer.withLock { $0 = nil }
        publish()
        logger.notice("every partition handed over")
    }

    private func rebalanced(_ event: KafkaGroupConsumer.Rebalance) {
        switch event {
        case .assigned(let partitions):
            for p in partitions where workers[p] == nil {
                let worker = KafkaPartitionWorker(partition: p, configuration: configuration, names: names, requests: requests, metrics: metrics,
                                                  logger: logger) { [unowned self] partition, offset in
                    guard let member = self.consumer.withLock({ $0 }) else { return }
                    try member.commit(partition: partition, offset: offset)
                }
                workers[p] = worker
                worker.start()
            }
            logger.notice("partitions assigned", metadata: ["partitions": "\(partitions)"])
        case .revoked(let partitions, let lost):
            for p in partitions {
                guard let worker = workers.removeValue(forKey: p) else { continue }
                worker.stop(checkpoint: !lost)
                if lost { metrics.leaseLosses.increment() }
            }
            logger.notice(lost ? "partitions lost" : "partitions revoked", metadata: ["partitions": "\(partitions)"])
        }
        publish()
    }

    private func publish() {
        let list = workers.keys.sorted()
        ownedNow.withLock { $0 = list }
        metrics.owned.record(list.count)
    }
}
