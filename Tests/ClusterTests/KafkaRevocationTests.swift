@testable import Cluster
import Foundation
import Logging
import Synchronization
import Testing
import TestSupport
import TriggerEngine

/// The consumer group's rebalance callback with every worker of the first member stuck (a hook holds them at the
/// top of their loop, as a produce that is never acknowledged would): the revocation waits for a stuck worker at
/// most half the session timeout, then abandons it, so the group completes the rebalance and the second member gets
/// its share while the stuck workers are still there.
@Suite(.serialized) struct KafkaRevocationTests {
    static var available: Bool { KafkaMock.available }

    @Test(.enabled(if: KafkaRevocationTests.available, "geotrigger-kafka-mock is not built"), .timeLimit(.minutes(5)))
    func aStuckWorkerDoesNotHoldTheRebalance() throws {
        let names = ClusterNames(prefix: "kr")
        let mock = try KafkaMock(names: names, partitions: 4)
        let logger = Logger(label: "kafka-revocation-test")
        let configuration = { (instance: String) in
            ClusterConfiguration(servers: [mock.bootstrapServers], instance: instance, partitions: 4, replicas: 1, leaseTTL: .seconds(6),
                                 checkpointInterval: .seconds(1), prefix: "kr", engine: TriggerEngine.Configuration(), transport: .kafka,
                                 sessionTimeout: .seconds(6))
        }
        let requests = RequestsFollower(logger: logger) { sequence in
            try KafkaRequestsReader(brokers: mock.bootstrapServers, instance: "test", names: names, from: sequence)
        }
        let gate = LeaseKeeperTests.Gate()
        let first = KafkaPartitionGroup(configuration: configuration("a"), names: names, requests: requests, metrics: ClusterMetrics(),
                                        logger: logger, eachRound: { gate.wait($0) })
        first.start()
        try LeaseKeeperTests.eventually("the first member owning every partition") { first.owned == [0, 1, 2, 3] }

        // Every worker of the first member stuck; a second member joins.
        gate.held.withLock { $0 = [0, 1, 2, 3] }
        let second = KafkaPartitionGroup(configuration: configuration("b"), names: names, requests: requests, metrics: ClusterMetrics(),
                                         logger: logger)
        second.start()
        defer {
            gate.held.withLock { $0 = [] }
            second.stop()
            first.stop()
        }
        try LeaseKeeperTests.eventually("the rebalance giving the second member its share while the first's workers are stuck") {
            second.owned.count == 2 && first.owned.count == 2
        }
        #expect(Set(first.owned).isDisjoint(with: second.owned))
        #expect(Set(first.stopping) == Set([0, 1, 2, 3]).subtracting(first.owned), "the abandoned workers are listed as stopping")

        // Released, the abandoned workers return (fenced) and leave the list.
        gate.held.withLock { $0 = [] }
        try LeaseKeeperTests.eventually("the abandoned workers returning") { first.stopping.isEmpty }
        #expect(first.owned.count == 2)
    }
}
