import Foundation
import Kafka
import Synchronization
import Testing
import TestSupport

/// The Kafka building blocks against librdkafka's in-process mock cluster (Debian 12 packages no Kafka broker):
/// the Java client's partitioner, the idempotent producer's acknowledgements, partition readers, and the consumer
/// group's assignment, rebalance callbacks and committed offsets.
@Suite(.serialized) struct KafkaPrimitivesTests {
    /// Hashes Kafka's own `Utils.murmur2` gives (as published beside ports that check against it), and the
    /// partitions librdkafka's `murmur2` partitioner picks: GeoTrigger, Java producers and librdkafka agree.
    @Test func murmur2IsTheJavaClientsPartitioner() {
        let java: [(String, Int32)] = [("1", -1_993_445_489), ("12", 126_087_238), ("123", -267_702_483), ("1234", -1_614_185_708), ("12345", -1_188_365_604)]
        for (key, hash) in java { #expect(KafkaPartitioner.murmur2(Array(key.utf8)) == hash, "\(key)") }
        // Java: toPositive(-1993445489) % 6 = (-1993445489 & 0x7fffffff) % 6.
        #expect(KafkaPartitioner.partition(of: "1", count: 6) == Int(UInt32(bitPattern: -1_993_445_489) & 0x7fff_ffff) % 6)
        var rng = SplitMix(seed: 4)
        let keys = (0..<2000).map { k in k % 4 == 0 ? "veh-\(k)" : "d\(rng.next() % 10_000_000)-\(k)" } + ["", "a", "ab", "abc", "ä-unicode-👍"]
        for key in keys {
            for count in [1, 6, 7, 12, 100] {
                let bytes = Array(key.utf8)
                #expect(KafkaPartitioner.partition(of: bytes, count: count) == KafkaPartitioner.librdkafkaPartition(of: bytes, count: count),
                        "\(key) among \(count)")
            }
        }
    }

    /// `send` returns the offsets the broker gave, in order; a reader from an offset returns exactly what follows,
    /// with its headers; reading from an offset that does not exist is an error, not a silent jump.
    @Test func producerAcknowledgesAndReaderReadsInOrder() throws {
        let mock = try MockCluster()
        try mock.createTopic(KafkaTopic(name: "t", partitions: 3))
        let producer = try KafkaProducer(brokers: mock.bootstrapServers, clientId: "test")
        #expect(try producer.partitionCounts()["t"] == 3)
        let messages = (0..<50).map {
            KafkaMessage(topic: "t", partition: 1, key: Array("k\($0)".utf8), value: Array("v\($0)".utf8), headers: [("id", Array("h\($0)".utf8)), ("n", [UInt8($0)])])
        }
        #expect(try producer.send(messages) == (0..<50).map(Int64.init))
        for k in 0..<10 { try producer.produce(KafkaMessage(topic: "t", partition: 2, key: nil, value: [UInt8(k)])) }
        #expect(try producer.flush(timeout: .seconds(10)) == 0)
        #expect(try producer.endOffset(topic: "t", partition: 2) == 10)
        let reader = try KafkaPartitionReader(brokers: mock.bootstrapServers, clientId: "r", topic: "t", partition: 1, from: 20)
        let read = try reader.readToEnd()
        #expect(read.map(\.offset) == Array(20..<50))
        #expect(read.first?.value == Array("v20".utf8) && read.first?.key == Array("k20".utf8) && read.first?.headers == ["id": Array("h20".utf8), "n": [20]])
        #expect(try reader.fetch(10, timeout: .milliseconds(300)).isEmpty)
        // Keyed without a partition: placed where the Java partitioner says.
        let keyed = (0..<30).map { KafkaMessage(topic: "t", key: Array("dev-\($0)".utf8), value: []) }
        try producer.send(keyed)
        var found: [String: Int] = [:]
        for p in 0..<3 {
            let r = try KafkaPartitionReader(brokers: mock.bootstrapServers, clientId: "r\(p)", topic: "t", partition: p, from: 0)
            for record in try r.readToEnd() { if let k = record.key, k.starts(with: Array("dev-".utf8)) { found[String(decoding: k, as: UTF8.self)] = p } }
        }
        #expect(found.count == 30)
        for (key, p) in found { #expect(p == KafkaPartitioner.partition(of: key, count: 3), "\(key)") }
        let beyond = try KafkaPartitionReader(brokers: mock.bootstrapServers, clientId: "beyond", topic: "t", partition: 1, from: 500)
        #expect(throws: KafkaError.self) {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline { _ = try beyond.fetch(10, timeout: .milliseconds(200)) }
        }
    }

    /// Two members split six partitions; when one leaves, the other is told the rebalance (revoked, then assigned
    /// all six); committed offsets are what the group remembers.
    @Test(.timeLimit(.minutes(1))) func groupAssignsRebalancesAndCommits() throws {
        let mock = try MockCluster()
        try mock.createTopic(KafkaTopic(name: "in", partitions: 6))
        let events = Mutex<[String: [KafkaGroupConsumer.Rebalance]]>([:])
        let owned = Mutex<[String: Set<Int>]>([:])
        let settings = KafkaSettings([("session.timeout.ms", "6000"), ("heartbeat.interval.ms", "500")])
        func member(_ name: String) throws -> KafkaGroupConsumer {
            try KafkaGroupConsumer(brokers: mock.bootstrapServers, group: "g", clientId: name, topic: "in", settings: settings) { event in
                events.withLock { $0[name, default: []].append(event) }
                owned.withLock { o in
                    switch event {
                    case .assigned(let ps): o[name, default: []].formUnion(ps)
                    case .revoked(let ps, _): o[name, default: []].subtract(ps)
                    }
                }
            }
        }
        let a = try member("a"), b = try member("b")
        let deadline = ContinuousClock.now + .seconds(40)
        func pollUntil(_ what: String, _ members: [KafkaGroupConsumer], _ done: () -> Bool) throws {
            while !done() {
                guard ContinuousClock.now < deadline else { throw ClusterTestFailure(description: "not within the time: \(what); \(events.withLock { $0 })") }
                for m in members { m.poll(timeout: .milliseconds(50)) }
            }
        }
        let joined = ContinuousClock.now
        try pollUntil("both members own 3 partitions", [a, b]) {
            owned.withLock { $0["a"]?.count == 3 && $0["b"]?.count == 3 && $0["a"]!.union($0["b"]!) == Set(0..<6) }
        }
        print("kafka group: two members assigned 3 + 3 after \(ContinuousClock.now - joined)")
        let bOwned = owned.withLock { $0["b"]! }
        try b.commit(partition: bOwned.min()!, offset: 42)
        #expect(try b.committed([bOwned.min()!])[bOwned.min()!] == 42)
        let left = ContinuousClock.now
        b.close()
        #expect(events.withLock { $0["b"]?.last } == .revoked(bOwned.sorted(), lost: false))
        try pollUntil("a owns all six after b left", [a]) { owned.withLock { $0["a"] == Set(0..<6) } }
        print("kafka group: b left, a owns all six after \(ContinuousClock.now - left)")
        #expect(events.withLock { $0["a"]!.contains { if case .revoked = $0 { true } else { false } } }, "eager rebalancing revokes first")
        #expect(try a.committed([bOwned.min()!])[bOwned.min()!] == 42, "the offset b committed survives the rebalance")
    }

    /// `/readyz` on a Kafka instance: the producer says so once every broker is gone.
    @Test func producerNoticesWhenEveryBrokerIsDown() throws {
        var mock: MockCluster? = try MockCluster()
        try mock!.createTopic(KafkaTopic(name: "t", partitions: 1))
        let producer = try KafkaProducer(brokers: mock!.bootstrapServers, clientId: "down")
        try producer.send([KafkaMessage(topic: "t", partition: 0, key: nil, value: [1])])
        #expect(producer.brokersReachable)
        mock = nil
        let deadline = ContinuousClock.now + .seconds(15)
        while producer.brokersReachable, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.2) }
        #expect(!producer.brokersReachable, "every broker is gone")
    }
}
