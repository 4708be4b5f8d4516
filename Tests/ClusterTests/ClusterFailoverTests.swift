import Cluster
import EngineLog
import Foundation
import JSON
import NATS
import Testing
import TestSupport
import TriggerEngine

/// The scale-out deployment as an operator runs it: a real 3-node JetStream cluster and three `geotrigger serve`
/// instances behind a client that spreads batches over them. One instance is killed (-9) mid-stream, then the node
/// leading the most partitions' input streams, both come back, then the JetStream meta leader is killed and comes
/// back. The notification stream must then hold exactly the notifications
/// of a single-instance `geotrigger replay` of the same fixes: each deliveryId once, with the same bytes.
@Suite(.serialized) struct ClusterFailoverTests {
    static var available: Bool { NATSCluster.available && FileManager.default.isExecutableFile(atPath: BuiltBinary.geotrigger.path) }

    @Test(.enabled(if: ClusterFailoverTests.available, "nats-server is not installed (Tools/setup.sh --tests)"), .timeLimit(.minutes(10)))
    func killedInstanceAndKilledLeaderLoseNothingAndAddNothing() async throws {
        let cluster = try NATSCluster()
        let directory = cluster.directory
        let names = ClusterNames(prefix: "geotrigger")
        let settings = ["--partitions", "6", "--replicas", "3", "--lease-ttl", "3", "--checkpoint-interval", "1", "--clock", "event"]
        // At debug, each gateway logs where JetStream said it stored each input message: checked against the streams below.
        let instances = try (1...3).map { try ServeInstance(name: "i\($0)", journal: cluster.journal, directory: directory, extra: settings, logLevel: "debug") }
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
        // How long a partition stays listed by two instances after each fault (printed, not asserted on).
        var overlap: OwnershipOverlap?
        let report = { (what: String, watch: OwnershipOverlap?) in
            guard let r = watch?.stop() else { return }
            print("cluster failover: \(what): a partition listed by two instances for at most \(r.longest) (\(r.episodes) times)")
        }
        for step in 0..<workload.steps {
            switch step {
            case 10:
                overlap = OwnershipOverlap(instances)
                let had = instances[1].owned() ?? []
                #expect(!had.isEmpty, "i2 owned no partition when it was killed: \(instances[1].log.suffix(3000))")
                instances[1].kill9()
                // Its partitions move once its leases expire (3 s), plus a lease round.
                let killed = ContinuousClock.now
                try await Self.waitUntilOwned([instances[0], instances[2]], what: "the survivors taking i2's partitions")
                let moved = ContinuousClock.now - killed
                print("cluster failover: i2 killed, its partitions owned again after \(moved)")
            case 18:
                report("instance i2 killed", overlap)
                overlap = OwnershipOverlap(instances)
                let probe = try NATSConnection(servers: cluster.servers, name: "test probe")
                // The node leading the most input streams (each partition's stream has its own leader).
                let leaders = try (0..<6).compactMap { try probe.streamLeader(stream: names.inputStream($0)) }
                let leader = try #require(Dictionary(grouping: leaders) { $0 }.max { $0.value.count < $1.value.count }?.key)
                let index: Int = try #require(cluster.index(named: leader))
                print("cluster failover: killing \(leader), leader of \(leaders.filter { $0 == leader }.count) of 6 input streams (meta leader: \(cluster.metaLeader() ?? "none known"))")
                killedLeader = index
                cluster.kill9(index)
            case 24:
                report("the input streams' leading node killed", overlap)
                overlap = OwnershipOverlap(instances)
                try cluster.start(killedLeader!)
                try instances[1].start()
                try instances[1].waitReady()
            case 26:
                // The JetStream meta leader (stream and consumer placement, leader elections) from a settled state.
                try await Self.waitUntilOwned(instances, what: "the restarted instance taking its share back")
                report("node and instance restarted", overlap)
                let meta = try #require(await Self.metaLeader(cluster))
                overlap = OwnershipOverlap(instances)
                let metaIndex: Int = try #require(cluster.index(named: meta))
                killedLeader = metaIndex
                print("cluster failover: killing the meta leader \(meta)")
                cluster.kill9(metaIndex)
            case 28:
                report("the meta leader killed", overlap)
                overlap = OwnershipOverlap(instances)
                try cluster.start(killedLeader!)
            default: break
            }
            let alive = instances.filter(\.isRunning)
            let sending = ContinuousClock.now
            try await Self.send(step: step, workload: workload, to: alive)
            if step == 18 { print("cluster failover: input streams' leader killed; step 18's 1,000 fixes acknowledged after \(ContinuousClock.now - sending)") }
            if step == 26 { print("cluster failover: meta leader killed; step 26's 1,000 fixes acknowledged after \(ContinuousClock.now - sending)") }
        }
        try await Self.waitUntilOwned(instances, what: "every partition owned after the meta leader's restart")
        report("meta leader restarted", overlap)

        // Every acknowledged fix must be in its partition's input stream. Read first: the owners are compared below
        // with a replay of what the log holds, so an input missing from the log is the ingest path's failure (or
        // JetStream's), reported as such, and never taken for the owners'.
        let reader = try NATSConnection(servers: cluster.servers, name: "test reader")
        var logRead: InputLogContents?
        try await Self.eventually("the input streams read") {
            logRead = try? Self.inputLog(workload, reader: reader, names: names, partitions: 6)
            return logRead != nil
        }
        let log = logRead!
        // Where each gateway was told its input messages were stored, against what those sequences hold now.
        let acknowledged = instances.flatMap { Self.acknowledgedInputs(in: $0.log) }
        let replaced = acknowledged.filter { log.messageIds[$0.partition]?[$0.sequence] != $0.id }
        print("cluster failover: \(acknowledged.count) input messages acknowledged by JetStream, \(replaced.count) of them no longer at their sequence\(replaced.isEmpty ? "" : ": \(replaced.prefix(5).map { "p\($0.partition)@\($0.sequence) \($0.id) now \(log.messageIds[$0.partition]?[$0.sequence] ?? "nothing")" })")")
        if log.absent.isEmpty {
            #expect(replaced.isEmpty)
        } else if !replaced.isEmpty {
            // JetStream acknowledged these messages as stored, then lost them: Debian 12's nats-server 2.9.10 after its
            // stream leader was SIGKILLed (docs/cluster.md). Reported as a known issue, not a pass: the fixes are
            // printed, and the owners are still held to exactly the log's contents.
            withKnownIssue("nats-server lost input messages it had acknowledged (its stream leader was killed)", isIntermittent: true) {
                Issue.record("acknowledged fixes absent from the input streams (partition: [step: fixes]): \(log.absent)")
            }
        } else {
            Issue.record("acknowledged fixes absent from the input streams (partition: [step: fixes]), with no message JetStream acknowledged missing: \(log.absent)")
        }

        // The single-instance run of what the log holds (the whole workload, unless JetStream lost some).
        let requestsFile = directory.appendingPathComponent("requests.json"), fixesFile = directory.appendingPathComponent("fixes.ndjson")
        try workload.requestsJSON.write(to: requestsFile, atomically: true, encoding: .utf8)
        let lines = (0..<workload.steps).flatMap { step in
            (0..<workload.devices).filter { !log.absentKeys.contains(workload.key(step: step, device: $0)) }.map { workload.line(step: step, device: $0) + "\n" }
        }
        try lines.joined().write(to: fixesFile, atomically: true, encoding: .utf8)
        let replay = try BuiltBinary.output(["replay", requestsFile.path, fixesFile.path])
        #expect(replay.status == 0)
        let single = replay.stdout.split(separator: "\n").map(String.init)
        #expect(single.count > 2000, "the workload fires too little to test anything: \(single.count)")

        // Everything evaluated: bound by work, the stream holds as many notifications as the single run (a lost one
        // then shows as an extra one, a stalled partition as the time limit). What the stream holds when the wait
        // gives up is compared all the same, so a failure says which notifications are missing.
        var clusterLines: [String] = []
        _ = await TestSupport.eventually(timeout: .seconds(300), every: .milliseconds(500)) {
            guard let stored = Self.wholeStream(reader, names: names) else { return false }
            clusterLines = Self.notificationLines(stored)
            return clusterLines.count >= single.count
        }
        print("cluster failover: \(clusterLines.count) notifications in the stream, \(single.count) from a single-instance replay of the input log")

        // Owners that found their input consumer stalled or skipping and started over (printed, not asserted on).
        let stalls = instances.flatMap { i in i.log.split(separator: "\n").filter { $0.contains("its consumer delivered nothing") || $0.contains("consumer skipped") } }
        print("cluster failover: \(stalls.count) input consumers found stalled or skipping\(stalls.isEmpty ? "" : ": " + stalls.joined(separator: "\n"))")

        let comparison = try NotificationComparison(cluster: clusterLines, single: single)
        let (lost, extra) = (comparison.lost, comparison.extra)
        for i in instances { i.terminate() }
        if !lost.isEmpty || !extra.isEmpty || !log.absent.isEmpty {
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

    /// SPEC §1's `repeats: false` across partitions: each partition's engine fires the request at its own first
    /// transition, and the deployment publishes exactly one of them.
    @Test(.enabled(if: ClusterFailoverTests.available, "nats-server is not installed (Tools/setup.sh --tests)"), .timeLimit(.minutes(3)))
    func aRequestThatDoesNotRepeatFiresOnceInTheDeployment() async throws {
        let cluster = try NATSCluster(size: 1)
        let names = ClusterNames(prefix: "geotrigger")
        let settings = ["--partitions", "6", "--replicas", "1", "--lease-ttl", "3", "--checkpoint-interval", "1", "--clock", "event"]
        let instances = try (1...2).map { try ServeInstance(name: "o\($0)", journal: cluster.journal, directory: cluster.directory, extra: settings) }
        for i in instances { try i.start() }
        for i in instances { try i.waitReady() }
        try await Self.waitUntilOwned(instances, what: "two instances sharing 6 partitions")
        let workload = ClusterWorkload(devices: 300, steps: 10, seed: 7)
        let added = try LoopbackHTTP.exchange(port: instances[0].port, method: "POST", path: "/v1/requests", body: Array(workload.requests(withOnce: true).utf8))
        #expect(added.status == 200, "\(added.body)")
        try await Self.eventually("every instance read the requests") {
            instances.allSatisfy { i in (try? LoopbackHTTP.exchange(port: i.port, method: "GET", path: "/v1/cluster"))?.body.contains("\"requestsSequence\":1") == true }
        }
        for step in 0..<workload.steps { try await Self.send(step: step, workload: workload, to: instances) }
        // The single-instance run fires it once; the deployment's partitions would fire it in each partition whose
        // devices cross it, were the claim not there.
        let directory = cluster.directory
        try workload.requests(withOnce: true).write(to: directory.appendingPathComponent("once.json"), atomically: true, encoding: .utf8)
        try workload.ndjson.write(to: directory.appendingPathComponent("once.ndjson"), atomically: true, encoding: .utf8)
        let replay = try BuiltBinary.output(["replay", directory.appendingPathComponent("once.json").path, directory.appendingPathComponent("once.ndjson").path])
        let isOnce = { (line: Substring) in line.contains(#""identifier":"once""#) }
        #expect(replay.stdout.split(separator: "\n").filter(isOnce).count == 1)
        let reader = try NATSConnection(servers: cluster.servers, name: "test reader")
        try await Self.eventually("the once request fired") {
            let stored = (try? reader.messages(stream: names.notificationsStream, subject: names.notificationsWildcard)) ?? []
            return stored.contains { isOnce(Substring(decoding: $0.data, as: UTF8.self)) }
        }
        try await Task.sleep(for: .seconds(3))
        let stored = try reader.messages(stream: names.notificationsStream, subject: names.notificationsWildcard)
        let once = Self.notificationLines(stored).filter { isOnce(Substring($0)) }
        #expect(once.count == 1, "\(once)")
        // More than one partition fired it: the claim is what kept it to one.
        let crossers = Set((0..<workload.devices).filter { d in
            (0..<workload.steps).contains { s in
                let (lat, lon) = workload.positions[s][d]
                return Self.meters(lat, lon, 52.015, 13.03) < 300
            }
        }.map { Partitioning.partition(of: "veh-\($0)", count: 6) })
        #expect(crossers.count > 1, "the workload must cross the once circle in several partitions")
        for i in instances { i.terminate() }
    }

    static func meters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let k = Double.pi / 180, dLat = (lat2 - lat1) * k, dLon = (lon2 - lon1) * k * cos((lat1 + lat2) / 2 * k)
        return 6_371_008.8 * (dLat * dLat + dLon * dLon).squareRoot()
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

    /// The meta leader once a node names one (a fresh election may be under way).
    static func metaLeader(_ cluster: NATSCluster) async -> String? {
        var leader: String?
        _ = await TestSupport.eventually(every: .milliseconds(200)) {
            leader = cluster.metaLeader()
            return leader != nil
        }
        return leader
    }

    /// The notifications in the stream's messages: each message holds the lines one input fired.
    static func notificationLines(_ stored: [StoredMessage]) -> [String] {
        stored.flatMap { String(decoding: $0.data, as: UTF8.self).split(separator: "\n").map(String.init) }
    }

    /// Every message of the notification stream, or nil when the read did not return each of sequences 1...last
    /// (a reader's consumer that lost some on the way, or a stream whose leader is still being elected).
    static func wholeStream(_ reader: NATSConnection, names: ClusterNames) -> [StoredMessage]? {
        guard let last = try? reader.lastSequence(stream: names.notificationsStream),
              let stored = try? reader.messages(stream: names.notificationsStream, subject: names.notificationsWildcard),
              stored.prefix(Int(last)).map(\.sequence).elementsEqual(1..<last + 1) else { return nil }
        return stored
    }

    /// What the partitions' input streams hold: the workload's fixes that no message holds (partition → [step:
    /// devices], and their keys), and each message's `Nats-Msg-Id` by partition and sequence.
    struct InputLogContents {
        var absent: [Int: [Int: Int]] = [:]
        var absentKeys: Set<String> = []
        var messageIds: [Int: [UInt64: String]] = [:]
    }

    static func inputLog(_ workload: ClusterWorkload, reader: NATSConnection, names: ClusterNames, partitions: Int) throws -> InputLogContents {
        var contents = InputLogContents()
        var stored = Set<String>()
        for p in 0..<partitions {
            let last = try reader.lastSequence(stream: names.inputStream(p))
            let messages = try reader.messages(stream: names.inputStream(p), subject: names.inputSubject(p))
            // Read whole, or read again.
            guard messages.map(\.sequence).elementsEqual(1..<last + 1) else {
                throw ClusterTestFailure(description: "input stream \(p) read \(messages.count) of \(last)")
            }
            for message in messages {
                if let id = message.messageId { contents.messageIds[p, default: [:]][message.sequence] = id }
                guard case .fixes(let fixes) = try ClusterInput(decoding: message.data, sequence: message.sequence).input else { continue }
                for f in fixes { stored.insert("\(f.device)@\(f.timestamp.microseconds / 1000)") }
            }
        }
        for step in 0..<workload.steps {
            for d in 0..<workload.devices where !stored.contains(workload.key(step: step, device: d)) {
                contents.absentKeys.insert(workload.key(step: step, device: d))
                contents.absent[Partitioning.partition(of: "veh-\(d)", count: partitions), default: [:]][step, default: 0] += 1
            }
        }
        return contents
    }

    /// The input messages a gateway's debug log says JetStream acknowledged: partition, sequence and message id, from
    /// its rounds with nothing missing (`JetStreamInputLog`'s "input messages stored").
    static func acknowledgedInputs(in log: String) -> [(partition: Int, sequence: UInt64, id: String)] {
        var out: [(partition: Int, sequence: UInt64, id: String)] = []
        for line in log.split(separator: "\n") where line.contains("input messages stored") && line.contains("missing=0") {
            guard let p = line.range(of: "partitions=["), let pe = line[p.upperBound...].firstIndex(of: "]"),
                  let s = line.range(of: "stored=["), let se = line[s.upperBound...].firstIndex(of: "]") else { continue }
            let partitions = line[p.upperBound..<pe].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            let stored = line[s.upperBound..<se].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"")) }
            guard partitions.count == stored.count else { continue }
            for (partition, entry) in zip(partitions, stored) {
                guard let at = entry.lastIndex(of: "@"), let sequence = UInt64(entry[entry.index(after: at)...]) else { continue }
                out.append((partition, sequence, String(entry[..<at])))
            }
        }
        return out
    }

    /// Waits until the instances between them own each of the 6 partitions exactly once, each its share.
    static func waitUntilOwned(_ instances: [ServeInstance], what: String, timeout: Duration = .seconds(600)) async throws {
        try await eventually(what, timeout: timeout) {
            let owned = instances.compactMap { $0.owned() }
            return owned.count == instances.count && owned.joined().sorted() == Array(0..<6)
                && owned.allSatisfy { $0.count == 6 / instances.count }
        }
    }

    /// `eventually`, failing the test with what did not happen.
    static func eventually(_ what: String, timeout: Duration = .seconds(600), _ check: () -> Bool) async throws {
        guard await TestSupport.eventually(timeout: timeout, every: .milliseconds(200), check) else {
            throw ClusterTestFailure(description: "not within \(timeout): \(what)")
        }
    }

}
