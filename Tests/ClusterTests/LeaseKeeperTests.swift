@testable import Cluster
import Foundation
import Logging
import NATS
import Synchronization
import Testing
import TriggerEngine

/// The lease keeper against a real 3-node nats-server cluster, with one partition's worker stuck (a hook holds it
/// at the top of its loop, as a publish that is never acknowledged would): the keeper still heartbeats, still
/// renews the partitions it keeps, and abandons the stuck partition as soon as its lease is taken, without waiting
/// for the worker.
@Suite(.serialized) struct LeaseKeeperTests {
    /// Holds the workers of the partitions in `held` until released.
    final class Gate: Sendable {
        let held = Mutex<Set<Int>>([])
        func wait(_ partition: Int) {
            while held.withLock({ $0.contains(partition) }) { Thread.sleep(forTimeInterval: 0.02) }
        }
    }

    /// Polls `condition` until it holds; `timeout` only ends a hang.
    static func eventually(_ what: String, timeout: Duration = .seconds(120), _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ClusterTestFailure(description: "not within \(timeout): \(what)")
    }

    @Test(.enabled(if: NATSCluster.available, "nats-server is not installed (Tools/setup.sh --tests)"), .timeLimit(.minutes(5)))
    func aStuckWorkerNeitherDelaysRenewalsNorKeepsALostPartitionListed() throws {
        let cluster = try NATSCluster()
        let names = ClusterNames(prefix: "lk")
        let probe = try NATSConnection(servers: cluster.servers, name: "test probe")
        try names.ensureStreams(on: probe, partitions: 2, replicas: 3, duplicateWindow: .seconds(120))
        let configuration = ClusterConfiguration(servers: cluster.servers, instance: "keeper", partitions: 2, replicas: 3,
                                                 leaseTTL: .seconds(3), checkpointInterval: .seconds(1), prefix: "lk",
                                                 engine: TriggerEngine.Configuration())
        let logger = Logger(label: "lease-keeper-test")
        let requests = RequestsFollower(logger: logger) { sequence in
            JetStreamRequestsReader(consumer: try PullConsumer(connection: probe, stream: names.requestsStream, subject: names.requestsSubject,
                                                               from: sequence))
        }
        let gate = Gate()
        gate.held.withLock { $0 = [0] }
        let keeper = JetStreamLeases(configuration: configuration, names: names, requests: requests, metrics: ClusterMetrics(), logger: logger,
                                     eachRound: { gate.wait($0) })
        keeper.start()
        defer {
            gate.held.withLock { $0 = [] }
            keeper.stop()
        }
        try Self.eventually("the keeper owning both partitions") { keeper.owned == [0, 1] }

        // Another instance takes partition 0's lease (and keeps it) while its worker is stuck.
        let leases = try KeyValueBucket(connection: probe, name: names.leaseBucket, replicas: 3, ttl: .seconds(3))
        let members = try KeyValueBucket(connection: probe, name: names.memberBucket, replicas: 3, ttl: .seconds(3))
        try leases.put("p0", value: Array("thief".utf8))
        var lastSteal = ContinuousClock.now
        try Self.eventually("partition 0 leaving `owned` while its worker is stuck") {
            if ContinuousClock.now - lastSteal > .milliseconds(500) { try leases.put("p0", value: Array("thief".utf8)); lastSteal = .now }
            return keeper.owned == [1]
        }
        #expect(keeper.stopping == [0], "the stuck worker is listed as stopping")

        // With the worker still stuck, the keeper heartbeats and renews partition 1 round after round.
        let heartbeat = try #require(try members.get("keeper")).revision
        let lease1 = try #require(try leases.get("p1")).revision
        try Self.eventually("a heartbeat and a renewal of partition 1 after the worker got stuck") {
            try leases.put("p0", value: Array("thief".utf8))
            let h = try members.get("keeper")?.revision ?? 0, l = try leases.get("p1")?.revision ?? 0
            return h > heartbeat && l > lease1
        }
        #expect(keeper.owned == [1])
        #expect(try leases.get("p0")?.value == Array("thief".utf8), "the keeper never wrote over the lease it lost")

        // Released, the worker wakes fenced and returns; the keeper stops listing it.
        gate.held.withLock { $0 = [] }
        try Self.eventually("the abandoned worker returning") {
            try leases.put("p0", value: Array("thief".utf8))
            return keeper.stopping.isEmpty
        }
        #expect(!keeper.owned.contains(0))
    }
}
