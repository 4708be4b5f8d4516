import Cluster
import Foundation
import JSON
import NATS
import Testing
import TestSupport

/// The scale-out deployment as an operator runs it: a real 3-node JetStream cluster and three `geotrigger serve`
/// instances behind a client that spreads batches over them. One instance is killed (-9) mid-stream, then the
/// input stream's leader node; both come back. The notification stream must then hold exactly the notifications
/// of a single-instance `geotrigger replay` of the same fixes: each deliveryId once, with the same bytes.
@Suite(.serialized) struct ClusterFailoverTests {
    static var available: Bool { NATSCluster.available && FileManager.default.isExecutableFile(atPath: BuiltBinary.geotrigger.path) }

    @Test(.enabled(if: ClusterFailoverTests.available, "nats-server is not installed (Tools/setup.sh --tests)"), .timeLimit(.minutes(5)))
    func killedInstanceAndKilledLeaderLoseNothingAndAddNothing() async throws {
        let cluster = try NATSCluster()
        let directory = cluster.directory
        let names = ClusterNames(prefix: "geotrigger")
        let settings = ["--partitions", "6", "--replicas", "3", "--lease-ttl", "3", "--checkpoint-interval", "1", "--clock", "event"]
        let instances = try (1...3).map { try ServeInstance(name: "i\($0)", journal: cluster.journal, directory: directory, extra: settings) }
        for i in instances { try i.start() }
        for i in instances { try i.waitReady() }
        try await Self.waitUntilOwned(instances, what: "three instances sharing 6 partitions")

        let workload = ClusterWorkload(devices: 1000, steps: 30, seed: 42)
        let added = try LoopbackHTTP.exchange(port: instances[0].port, method: "POST", path: "/v1/requests", body: Array(workload.requestsJSON.utf8))
        #expect(added.status == 200, "\(added.body)")
        // Every instance has read the requests before fixes arrive anywhere (docs/cluster.md: a change applies to
        // inputs accepted after the accepting instance has seen it).
        try await Self.eventually("every instance read the requests") {
            instances.allSatisfy { i in (try? LoopbackHTTP.exchange(port: i.port, method: "GET", path: "/v1/cluster"))?.body.contains("\"requestsSequence\":1") == true }
        }

        var killedLeader: Int?
        for step in 0..<workload.steps {
            switch step {
            case 10:
                instances[1].kill9()
                // Its partitions move once its leases expire (3 s), plus a lease round.
                let killed = ContinuousClock.now
                try await Self.waitUntilOwned([instances[0], instances[2]], what: "the survivors taking i2's partitions", timeout: .seconds(15))
                let moved = ContinuousClock.now - killed
                #expect(moved < .seconds(3 + 5), "partitions moved after \(moved)")
            case 18:
                let probe = try NATSConnection(servers: cluster.servers, name: "test probe")
                let leader = try #require(try probe.streamLeader(stream: names.inputStream))
                killedLeader = try #require(cluster.index(named: leader))
                cluster.kill9(killedLeader!)
            case 24:
                try cluster.start(killedLeader!)
                try instances[1].start()
                try instances[1].waitReady()
            default: break
            }
            let alive = instances.filter(\.isRunning)
            try await Self.send(step: step, workload: workload, to: alive)
        }
        try await Self.waitUntilOwned(instances, what: "the restarted instance taking its share back")

        // Everything evaluated: the notification stream stops growing.
        let reader = try NATSConnection(servers: cluster.servers, name: "test reader")
        var last: UInt64 = 0, stableSince = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            let n = try reader.lastSequence(stream: names.notificationsStream)
            if n != last { last = n; stableSince = .now }
            if ContinuousClock.now - stableSince > .seconds(8) { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        let stored = try reader.messages(stream: names.notificationsStream, subject: names.notificationsWildcard)
        let clusterLines = stored.map { String(decoding: $0.data, as: UTF8.self) }

        // The single-instance run of the same input.
        let requestsFile = directory.appendingPathComponent("requests.json"), fixesFile = directory.appendingPathComponent("fixes.ndjson")
        try workload.requestsJSON.write(to: requestsFile, atomically: true, encoding: .utf8)
        try workload.ndjson.write(to: fixesFile, atomically: true, encoding: .utf8)
        let replay = try BuiltBinary.output(["replay", requestsFile.path, fixesFile.path])
        #expect(replay.status == 0)
        let single = replay.stdout.split(separator: "\n").map(String.init)
        #expect(single.count > 2000, "the workload fires too little to test anything: \(single.count)")

        // `repeats: false`: once in all, though not necessarily for the device a single instance would pick.
        let isOnce = { (line: String) in line.contains(#""identifier":"once""#) }
        #expect(single.filter(isOnce).count == 1)
        #expect(clusterLines.filter(isOnce).count == 1, "\(clusterLines.filter(isOnce))")
        let ids = try clusterLines.filter { !isOnce($0) }.map { try Self.deliveryId($0) }
        let counts = Dictionary(ids.map { ($0, 1) }, uniquingKeysWith: +)
        let repeated = counts.filter { $0.value > 1 }
        #expect(repeated.count == 0, "delivered more than once: \(repeated.keys.sorted().prefix(5))")
        let singleByID = Dictionary(try single.filter { !isOnce($0) }.map { (try Self.deliveryId($0), $0) }, uniquingKeysWith: { a, _ in a })
        let clusterByID = Dictionary(zip(ids, clusterLines.filter { !isOnce($0) }), uniquingKeysWith: { a, _ in a })
        let lost = Set(singleByID.keys).subtracting(clusterByID.keys), extra = Set(clusterByID.keys).subtracting(singleByID.keys)
        #expect(lost.count == 0, "lost, e.g. \(lost.sorted().prefix(5))")
        #expect(extra.count == 0, "extra, e.g. \(extra.sorted().prefix(5))")
        let differing = singleByID.filter { id, line in clusterByID[id].map { $0 != line } ?? false }
        #expect(differing.count == 0, "differ, e.g. \(differing.first.map { "\($0.value)\n vs \(clusterByID[$0.key]!)" } ?? "")")
        for i in instances { i.terminate() }
        if !lost.isEmpty || !extra.isEmpty {
            // What a failure needs to be understood: the instances' and servers' logs, and the ids by partition.
            let keep = FileManager.default.temporaryDirectory.appendingPathComponent("geotrigger-cluster-failure")
            try? FileManager.default.removeItem(at: keep)
            try? FileManager.default.copyItem(at: directory, to: keep)
            let byPartition = { (ids: Set<String>) in
                Dictionary(grouping: ids) { Partitioning.partition(of: String($0.split(separator: "/")[1]), count: 6) }.mapValues(\.count)
            }
            print("cluster failure kept in \(keep.path); lost by partition \(byPartition(lost)), extra by partition \(byPartition(extra))")
        }
    }

    /// Sends one step's fixes in batches of 100 devices, spread over the live instances; a batch that is refused
    /// (503 while JetStream elects a leader, or a connection to a killed instance) goes again, to the next one.
    static func send(step: Int, workload: ClusterWorkload, to instances: [ServeInstance]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in 0..<(workload.devices / 100) {
                let body = Array((batch * 100..<(batch + 1) * 100).map { workload.line(step: step, device: $0) + "\n" }.joined().utf8)
                group.addTask {
                    let deadline = ContinuousClock.now + .seconds(60)
                    var attempt = batch
                    while true {
                        let target = instances[attempt % instances.count]
                        let result = try? LoopbackHTTP.exchange(port: target.port, method: "POST", path: "/v1/fixes", body: body,
                                                                contentType: "application/x-ndjson")
                        if result?.status == 200 { return }
                        guard ContinuousClock.now < deadline else {
                            throw ClusterTestFailure(description: "step \(step) batch \(batch) not accepted: \(result.map { "\($0.status) \($0.body)" } ?? "no answer")")
                        }
                        attempt += 1
                        try await Task.sleep(for: .milliseconds(200))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Waits until the instances between them own each of the 6 partitions exactly once.
    static func waitUntilOwned(_ instances: [ServeInstance], what: String, timeout: Duration = .seconds(30)) async throws {
        try await eventually(what, timeout: timeout) {
            let owned = instances.compactMap { $0.owned() }
            return owned.count == instances.count && owned.joined().sorted() == Array(0..<6)
        }
    }

    static func eventually(_ what: String, timeout: Duration = .seconds(30), _ check: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !check() {
            guard ContinuousClock.now < deadline else { throw ClusterTestFailure(description: "not within \(timeout): \(what)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    static func deliveryId(_ line: String) throws -> String {
        guard let id = try JSONParser.parse(line)["deliveryId"]?.stringValue else { throw ClusterTestFailure(description: "no deliveryId in \(line)") }
        return id
    }
}
