import Cluster
import Foundation
import JSON
import Kafka
import Testing
import TestSupport

/// The Kafka path as an operator runs it, against librdkafka's mock cluster (Debian 12 packages no Kafka broker):
/// three `geotrigger serve --journal kafka://…` instances in one consumer group behind a client that spreads
/// batches over them. One instance is killed (-9) mid-stream; the group drops it after the session timeout and
/// gives its partitions to the others; it comes back and takes its share again. The notifications topic must then
/// hold exactly the notifications of a single-instance `geotrigger replay` of the same fixes: each deliveryId once,
/// with the same bytes.
@Suite(.serialized) struct KafkaClusterTests {
    static var available: Bool { KafkaMock.available && FileManager.default.isExecutableFile(atPath: BuiltBinary.geotrigger.path) }

    @Test(.enabled(if: KafkaClusterTests.available, "geotrigger-kafka-mock is not built"), .timeLimit(.minutes(4)))
    func killedInstanceLosesNothingAndAddsNothing() async throws {
        let names = ClusterNames(prefix: "geotrigger")
        let mock = try KafkaMock(names: names, partitions: 6)
        let directory = mock.directory
        let settings = ["--partitions", "6", "--replicas", "1", "--session-timeout", "4", "--checkpoint-interval", "1", "--clock", "event"]
        let instances = try (1...3).map { try ServeInstance(name: "k\($0)", journal: mock.journal, directory: directory, extra: settings) }
        for i in instances { try i.start() }
        for i in instances { try i.waitReady() }
        let joining = ContinuousClock.now
        try await ClusterFailoverTests.waitUntilOwned(instances, what: "three instances sharing 6 partitions", timeout: .seconds(40))
        print("kafka cluster: three instances own 2 partitions each after \(ContinuousClock.now - joining)")

        let workload = ClusterWorkload(devices: 1000, steps: 24, seed: 42)
        let requests = workload.requestsJSON
        let added = try LoopbackHTTP.exchange(port: instances[0].port, method: "POST", path: "/v1/requests", body: Array(requests.utf8))
        #expect(added.status == 200, "\(added.body)")
        try await ClusterFailoverTests.eventually("every instance read the requests") {
            instances.allSatisfy { i in (try? LoopbackHTTP.exchange(port: i.port, method: "GET", path: "/v1/cluster"))?.body.contains("\"requestsSequence\":1") == true }
        }

        let sending = ContinuousClock.now
        for step in 0..<workload.steps {
            switch step {
            case 8:
                let had = instances[1].owned() ?? []
                #expect(!had.isEmpty, "k2 owned no partition when it was killed: \(instances[1].log.suffix(3000))")
                instances[1].kill9()
                // The group drops it after the session timeout (4 s), then rebalances.
                let killed = ContinuousClock.now
                try await ClusterFailoverTests.waitUntilOwned([instances[0], instances[2]], what: "the survivors taking k2's partitions",
                                                              timeout: .seconds(30))
                let moved = ContinuousClock.now - killed
                #expect(moved < .seconds(4 + 16), "partitions moved after \(moved)")
                print("kafka cluster: k2 killed, its partitions owned again after \(moved)")
            case 16:
                try instances[1].start()
                try instances[1].waitReady()
            default: break
            }
            try await ClusterFailoverTests.send(step: step, workload: workload, to: instances.filter(\.isRunning))
        }
        print("kafka cluster: \(workload.devices * workload.steps) fixes accepted in \(ContinuousClock.now - sending) (with the failover)")
        let rejoining = ContinuousClock.now
        try await ClusterFailoverTests.waitUntilOwned(instances, what: "the restarted instance taking its share back", timeout: .seconds(40))
        print("kafka cluster: k2 back, three instances own 2 partitions each after \(ContinuousClock.now - rejoining)")

        // Everything evaluated: the notifications topic stops growing.
        let probe = try KafkaProducer(brokers: mock.bootstrapServers, clientId: "test-probe")
        var last: Int64 = -1, stableSince = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let n = try (0..<6).reduce(Int64(0)) { $0 + (try probe.endOffset(topic: names.notificationsTopic, partition: $1)) }
            if n != last { last = n; stableSince = .now }
            if ContinuousClock.now - stableSince > .seconds(6) { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        var records: [KafkaRecord] = []
        for p in 0..<6 {
            records += try KafkaPartitionReader(brokers: mock.bootstrapServers, clientId: "test-reader", topic: names.notificationsTopic, partition: p,
                                                from: 0).readToEnd()
        }
        let clusterLines = records.map { String(decoding: $0.value, as: UTF8.self) }

        // The single-instance run of the same input.
        let requestsFile = directory.appendingPathComponent("requests.json"), fixesFile = directory.appendingPathComponent("fixes.ndjson")
        try requests.write(to: requestsFile, atomically: true, encoding: .utf8)
        try workload.ndjson.write(to: fixesFile, atomically: true, encoding: .utf8)
        let replay = try BuiltBinary.output(["replay", requestsFile.path, fixesFile.path])
        #expect(replay.status == 0)
        let single = replay.stdout.split(separator: "\n").map(String.init)
        print("kafka cluster: \(clusterLines.count) notifications in the topic, \(single.count) from a single-instance replay")
        #expect(single.count > 1500, "the workload fires too little to test anything: \(single.count)")

        let comparison = try NotificationComparison(cluster: clusterLines, single: single)
        let ids = comparison.ids
        // Each notification's headers carry its deliveryId and its input's offset, and it sits in its device's partition.
        #expect(zip(records, ids).allSatisfy { r, id in r.headers[ClusterNames.deliveryIdHeader] == Array(id.utf8) })
        #expect(records.allSatisfy { r in r.headers[ClusterNames.inputOffsetHeader].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } != nil })
        #expect(records.allSatisfy { r in r.key.map { r.partition == KafkaPartitioner.partition(of: $0, count: 6) } ?? false })
        // The takeover really replayed something: a partition owned again found notifications to skip.
        let skipped = instances.map { $0.log }.joined().components(separatedBy: "published_after_checkpoint=").dropFirst()
            .compactMap { Int($0.prefix { $0.isNumber }) }
        print("kafka cluster: notifications found after a checkpoint when partitions were owned again: \(skipped.filter { $0 > 0 })")
        // A graceful stop hands every partition over with a checkpoint, and the group's offsets follow the
        // checkpoints: they end where the input does.
        for i in instances { i.terminate() }
        let ends = try (0..<6).map { try probe.endOffset(topic: names.inputTopic, partition: $0) }
        let checker = try KafkaGroupConsumer(brokers: mock.bootstrapServers, group: names.consumerGroup, clientId: "test-checker",
                                             topic: names.inputTopic) { _ in }
        let committed = try checker.committed(Array(0..<6))
        let committedAll = (0..<6).map { committed[$0] } == ends.map { Optional($0) }
        #expect(committedAll, "committed \(committed), input ends \(ends)")
        checker.close()
        if !comparison.lost.isEmpty || !comparison.extra.isEmpty || !comparison.repeated.isEmpty || !committedAll {
            let keep = FileManager.default.temporaryDirectory.appendingPathComponent("geotrigger-kafka-failure")
            try? FileManager.default.removeItem(at: keep)
            try? FileManager.default.copyItem(at: directory, to: keep)
            print("kafka cluster failure kept in \(keep.path)")
        }
    }

    /// SPEC §1's `repeats: false` across partitions on Kafka: each partition's engine fires the request at its own
    /// first transition, and the claims in the once topic let exactly one of them out.
    @Test(.enabled(if: KafkaClusterTests.available, "geotrigger-kafka-mock is not built"), .timeLimit(.minutes(2)))
    func aRequestThatDoesNotRepeatFiresOnceInTheDeployment() async throws {
        let names = ClusterNames(prefix: "geotrigger")
        let mock = try KafkaMock(names: names, partitions: 6)
        let settings = ["--partitions", "6", "--replicas", "1", "--session-timeout", "4", "--checkpoint-interval", "1", "--clock", "event"]
        let instances = try (1...2).map { try ServeInstance(name: "o\($0)", journal: mock.journal, directory: mock.directory, extra: settings) }
        for i in instances { try i.start() }
        for i in instances { try i.waitReady() }
        try await ClusterFailoverTests.waitUntilOwned(instances, what: "two instances sharing 6 partitions", timeout: .seconds(40))
        let workload = ClusterWorkload(devices: 300, steps: 10, seed: 7)
        let added = try LoopbackHTTP.exchange(port: instances[0].port, method: "POST", path: "/v1/requests", body: Array(workload.requests(withOnce: true).utf8))
        #expect(added.status == 200, "\(added.body)")
        try await ClusterFailoverTests.eventually("every instance read the requests") {
            instances.allSatisfy { i in (try? LoopbackHTTP.exchange(port: i.port, method: "GET", path: "/v1/cluster"))?.body.contains("\"requestsSequence\":1") == true }
        }
        for step in 0..<workload.steps { try await ClusterFailoverTests.send(step: step, workload: workload, to: instances) }
        let isOnce = { (line: String) in line.contains(#""identifier":"once""#) }
        let read = { () throws -> [String] in
            try (0..<6).flatMap { p in
                try KafkaPartitionReader(brokers: mock.bootstrapServers, clientId: "test-reader", topic: names.notificationsTopic, partition: p, from: 0)
                    .readToEnd().map { String(decoding: $0.value, as: UTF8.self) }
            }
        }
        try await ClusterFailoverTests.eventually("the once request fired") { ((try? read()) ?? []).contains(where: isOnce) }
        try await Task.sleep(for: .seconds(3))
        let once = try read().filter(isOnce)
        #expect(once.count == 1, "\(once)")
        // More than one partition fired it: the claims are what kept it to one.
        let claims = try KafkaPartitionReader(brokers: mock.bootstrapServers, clientId: "test-reader", topic: names.onceTopic, partition: 0, from: 0).readToEnd()
        let claimants = Set(claims.map { String(decoding: $0.value, as: UTF8.self) })
        #expect(claimants.count > 1, "only \(claimants) claimed it")
        #expect(once.first.map { line in claims.first.map { line.contains(String(decoding: $0.value, as: UTF8.self)) } ?? false } == true,
                "the published one is the first claim")
        for i in instances { i.terminate() }
    }
}
