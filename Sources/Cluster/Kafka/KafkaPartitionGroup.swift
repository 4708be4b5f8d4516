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
    private let stoppingNow = Mutex<[Int]>([])
    private let consumer = Mutex<KafkaGroupConsumer?>(nil)
    /// Touched only on the polling thread (the rebalance callback runs there too).
    private var workers: [Int: KafkaPartitionWorker] = [:]
    /// Workers revoked or lost that had not returned within the bound: a new worker for the partition waits for its
    /// predecessor (never two evaluating one partition here).
    private var windingDown: [Int: KafkaPartitionWorker] = [:]

    private let eachRound: (@Sendable (Int) -> Void)?

    /// - Parameter eachRound: passed to every worker (the tests make one stuck with it).
    init(configuration: ClusterConfiguration, names: ClusterNames, requests: RequestsFollower, metrics: ClusterMetrics, logger: Logger,
         eachRound: (@Sendable (Int) -> Void)? = nil) {
        self.eachRound = eachRound
        self.configuration = configuration
        self.names = names
        self.requests = requests
        self.metrics = metrics
        self.logger = logger
    }

    var owned: [Int] { ownedNow.withLock { $0 } }
    var stopping: [Int] { stoppingNow.withLock { $0 } }

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
            // Workers abandoned by a revocation return by themselves: they leave `stopping` once they have.
            if windingDown.values.contains(where: \.isFinished) {
                windingDown = windingDown.filter { !$0.value.isFinished }
                publish()
            }
        }
        member?.close()
        for (_, w) in workers { w.stop(checkpoint: true) }
        for (_, w) in windingDown { w.stop(checkpoint: false) }
        workers = [:]
        windingDown = [:]
        consumer.withLock { $0 = nil }
        publish()
        logger.notice("every partition handed over")
    }

    private func rebalanced(_ event: KafkaGroupConsumer.Rebalance) {
        switch event {
        case .assigned(let partitions):
            windingDown = windingDown.filter { !$0.value.isFinished }
            for p in partitions where workers[p] == nil {
                let worker = KafkaPartitionWorker(partition: p, configuration: configuration, names: names, requests: requests, metrics: metrics,
                                                  logger: logger, predecessor: windingDown.removeValue(forKey: p), eachRound: eachRound) { [unowned self] partition, offset in
                    guard let member = self.consumer.withLock({ $0 }) else { return }
                    try member.commit(partition: partition, offset: offset)
                }
                workers[p] = worker
                worker.start()
            }
            logger.notice("partitions assigned", metadata: ["partitions": "\(partitions)"])
        case .revoked(let partitions, let lost):
            // The callback runs on the polling thread and the group waits for it: a worker is waited for at most
            // half the session timeout (a lost partition not at all), then abandoned and left to return by itself.
            for p in partitions {
                guard let worker = workers.removeValue(forKey: p) else { continue }
                if lost {
                    worker.abandon()
                    metrics.leaseLosses.increment()
                } else if worker.stop(checkpoint: true, within: configuration.sessionTimeout / 2) {
                    continue
                } else {
                    worker.abandon()
                    metrics.leaseLosses.increment()
                    logger.warning("partition handover did not finish in time; abandoned without a checkpoint", metadata: ["partition": "\(p)"])
                }
                if !worker.isFinished { windingDown[p] = worker }
            }
            logger.notice(lost ? "partitions lost" : "partitions revoked", metadata: ["partitions": "\(partitions)"])
        }
        publish()
    }

    private func publish() {
        let list = workers.keys.sorted()
        ownedNow.withLock { $0 = list }
        let winding = windingDown.filter { !$0.value.isFinished }.keys.sorted()
        stoppingNow.withLock { $0 = winding }
        metrics.stopping.record(winding.count)
        metrics.owned.record(list.count)
    }
}
