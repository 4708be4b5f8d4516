import Cluster
import Foundation
import NATS
import Testing
import TestSupport

/// A partition's owner reads its input stream through an ephemeral consumer that lives on one server. When that
/// consumer is lost (its server killed or restarted, the meta leader's state rebuilt, an operator's delete), fetches
/// time out as if nothing were new: the owner must notice that the stream holds inputs it was not given and read them
/// through a new consumer, rather than stall with the partition listed as owned.
@Suite(.serialized) struct ConsumerLossTests {
    @Test(.enabled(if: ClusterFailoverTests.available, "nats-server is not installed (Tools/setup.sh --tests)"), .timeLimit(.minutes(5)))
    func anOwnerWhoseConsumerIsLostReadsOnThroughANewOne() async throws {
        let (cluster, instance, workload) = try await Self.deployment(nodes: 1, instance: "c1", steps: 8, seed: 11)
        let names = ClusterNames(prefix: "geotrigger")
        let reader = try NATSConnection(servers: cluster.servers, name: "test reader")
        let directory = cluster.directory
        let half = 4
        for step in 0..<half { try await ClusterFailoverTests.send(step: step, workload: workload, to: [instance]) }
        // Every input so far evaluated (its notifications all published): each partition's consumer exists and has
        // delivered them.
        let firstHalf = try Self.replay(workload, steps: half, in: directory)
        try await ClusterFailoverTests.eventually("the first half's notifications") {
            ClusterFailoverTests.notificationLines(ClusterFailoverTests.wholeStream(reader, names: names) ?? []).count >= firstHalf.count
        }
        var deleted = 0
        for p in 0..<2 {
            for consumer in try reader.consumerNames(stream: names.inputStream(p)) {
                try reader.deleteConsumer(stream: names.inputStream(p), consumer: consumer)
                deleted += 1
            }
        }
        #expect(deleted >= 2, "each partition's owner reads through a consumer of its input stream")
        for step in 4..<workload.steps { try await ClusterFailoverTests.send(step: step, workload: workload, to: [instance]) }

        let restarts = try await Self.expectTheReplaysNotifications(workload, in: directory, reader: reader, instance: instance,
                                                                   what: "the notifications of the inputs sent after the consumers were lost")
        #expect(!restarts.isEmpty, "\(instance.log.suffix(2000))")
    }

    /// The meta leader killed (SIGKILL) while owners make new consumers, the way the failover test's meta-leader kill
    /// once left a partition's owner fetching from a consumer that delivered nothing, without an error, for good.
    @Test(.enabled(if: ClusterFailoverTests.available, "nats-server is not installed (Tools/setup.sh --tests)"), .timeLimit(.minutes(8)))
    func consumersMadeWhileTheMetaLeaderIsKilledDeliverEverything() async throws {
        let (cluster, instance, workload) = try await Self.deployment(nodes: 3, instance: "k1", steps: 9, seed: 12)
        let names = ClusterNames(prefix: "geotrigger")
        let reader = try NATSConnection(servers: cluster.servers, name: "test reader")
        let directory = cluster.directory
        for step in 0..<3 { try await ClusterFailoverTests.send(step: step, workload: workload, to: [instance]) }
        let firstPart = try Self.replay(workload, steps: 3, in: directory)
        try await ClusterFailoverTests.eventually("the first steps' notifications") {
            ClusterFailoverTests.notificationLines(ClusterFailoverTests.wholeStream(reader, names: names) ?? []).count >= firstPart.count
        }
        // Each round: the consumers deleted (their owners make new ones at once) and the meta leader, which places
        // the new ones, killed at the same moment; a step sent while it is down, another once it is back.
        for round in 0..<3 {
            let meta = try #require(await ClusterFailoverTests.metaLeader(cluster))
            let index = try #require(cluster.index(named: meta))
            for p in 0..<2 {
                for consumer in (try? reader.consumerNames(stream: names.inputStream(p))) ?? [] {
                    try? reader.deleteConsumer(stream: names.inputStream(p), consumer: consumer)
                }
            }
            cluster.kill9(index)
            print("consumer loss: round \(round): consumers deleted, meta leader \(meta) killed")
            try await ClusterFailoverTests.send(step: 3 + 2 * round, workload: workload, to: [instance])
            try cluster.start(index)
            try await ClusterFailoverTests.send(step: 4 + 2 * round, workload: workload, to: [instance])
        }

        _ = try await Self.expectTheReplaysNotifications(workload, in: directory, reader: reader, instance: instance,
                                                        what: "every notification, the meta leader killed and back three times")
    }

    /// Waits, bounded by work, until the notification stream holds as many notifications as a single-instance replay
    /// of the whole workload (the time limit only guards against a hang), expects exactly the replay's, stops the
    /// instance, and returns its log's partition restarts (printed).
    static func expectTheReplaysNotifications(_ workload: ClusterWorkload, in directory: URL, reader: NATSConnection,
                                              instance: ServeInstance, what: String) async throws -> [Substring] {
        let names = ClusterNames(prefix: "geotrigger")
        let single = try replay(workload, steps: workload.steps, in: directory)
        #expect(single.count > 100, "the workload fires too little to test anything: \(single.count)")
        var lines: [String] = []
        try await ClusterFailoverTests.eventually(what) {
            lines = ClusterFailoverTests.notificationLines(ClusterFailoverTests.wholeStream(reader, names: names) ?? [])
            return lines.count >= single.count
        }
        let comparison = try NotificationComparison(cluster: lines, single: single)
        #expect(comparison.lost.isEmpty && comparison.extra.isEmpty)
        let restarts = instance.log.split(separator: "\n").filter { $0.contains("partition restarts from its newest checkpoint") }
        print("consumer loss: \(restarts.joined(separator: "\n"))")
        instance.terminate()
        return restarts
    }

    /// A cluster of `nodes` (streams replicated on each), one instance owning both partitions, and the workload's
    /// requests added and read by it.
    static func deployment(nodes: Int, instance name: String, steps: Int, seed: UInt64) async throws
        -> (cluster: NATSCluster, instance: ServeInstance, workload: ClusterWorkload) {
        let cluster = try NATSCluster(size: nodes)
        let settings = ["--partitions", "2", "--replicas", "\(nodes)", "--lease-ttl", "3", "--checkpoint-interval", "1", "--clock", "event"]
        let instance = try ServeInstance(name: name, journal: cluster.journal, directory: cluster.directory, extra: settings)
        try instance.start()
        try instance.waitReady()
        try await ClusterFailoverTests.eventually("both partitions owned") { instance.owned() == [0, 1] }
        let workload = ClusterWorkload(devices: 200, steps: steps, seed: seed)
        let added = try LoopbackHTTP.exchange(port: instance.port, method: "POST", path: "/v1/requests", body: Array(workload.requestsJSON.utf8))
        #expect(added.status == 200, "\(added.body)")
        try await ClusterFailoverTests.eventually("the requests read") {
            (try? LoopbackHTTP.exchange(port: instance.port, method: "GET", path: "/v1/cluster"))?.body.contains("\"requestsSequence\":1") == true
        }
        return (cluster, instance, workload)
    }

    /// A single-instance `geotrigger replay` of the workload's first `steps` steps.
    static func replay(_ workload: ClusterWorkload, steps: Int, in directory: URL) throws -> [String] {
        let requests = directory.appendingPathComponent("requests.json"), fixes = directory.appendingPathComponent("fixes-\(steps).ndjson")
        try workload.requestsJSON.write(to: requests, atomically: true, encoding: .utf8)
        let lines = (0..<steps).flatMap { s in (0..<workload.devices).map { workload.line(step: s, device: $0) + "\n" } }.joined()
        try lines.write(to: fixes, atomically: true, encoding: .utf8)
        let replay = try BuiltBinary.output(["replay", requests.path, fixes.path])
        #expect(replay.status == 0)
        return replay.stdout.split(separator: "\n").map(String.init)
    }
}
