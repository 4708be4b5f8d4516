import Cluster
import Foundation
import Kafka
import Testing
import TestSupport

/// The Kafka path's own pieces against librdkafka's mock cluster: checkpoints in the compacted topic, the
/// deployment's topics checked at start, and `kafka://` addresses.
@Suite(.serialized) struct KafkaCheckpointTests {
    /// A checkpoint larger than a message goes in chunks and comes back whole; the next one replaces it (the old
    /// chunks tombstoned); partitions keep their own; a damaged newest head is refused, never skipped.
    @Test func checkpointsRoundTripInChunksAndReplaceTheOldOnes() throws {
        let mock = try MockCluster()
        let names = ClusterNames(prefix: "ck")
        for t in names.kafkaTopics(partitions: 3, replicationFactor: 1) { try mock.createTopic(t) }
        let producer = try KafkaProducer(brokers: mock.bootstrapServers, clientId: "test")
        #expect(try KafkaCheckpoint.load(partition: 2, names: names, brokers: mock.bootstrapServers, clientId: "t") == nil)
        var rng = SplitMix(seed: 7)
        let body = (0..<1_300_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let first = KafkaCheckpoint(inputOffset: 41, requestsSequence: 3, notificationsOffset: 17, body: body)
        let at = try first.save(partition: 2, names: names, producer: producer, replacing: nil)
        #expect(at.chunks == 3)
        let loaded = try #require(try KafkaCheckpoint.load(partition: 2, names: names, brokers: mock.bootstrapServers, clientId: "t"))
        #expect(loaded.checkpoint == first && loaded.location == at)
        let second = KafkaCheckpoint(inputOffset: 90, requestsSequence: 4, notificationsOffset: 30, body: Array(body.prefix(1000)))
        let next = try second.save(partition: 2, names: names, producer: producer, replacing: at)
        #expect(try KafkaCheckpoint.load(partition: 2, names: names, brokers: mock.bootstrapServers, clientId: "t")?.checkpoint == second)
        // The replaced checkpoint's chunks are deleted (tombstones, for compaction), after the new head.
        let records = try KafkaPartitionReader(brokers: mock.bootstrapServers, clientId: "r", topic: names.checkpointsTopic, partition: 2, from: 0).readToEnd()
        let tombstones = records.filter { $0.value.isEmpty }.map { String(decoding: $0.key ?? [], as: UTF8.self) }
        #expect(tombstones == (0..<3).map { "chunk.\(at.token).\($0)" })
        #expect(next.chunks == 1 && next.token != at.token)
        // Another partition's checkpoints are its own.
        #expect(try KafkaCheckpoint.load(partition: 1, names: names, brokers: mock.bootstrapServers, clientId: "t") == nil)
        try producer.send([KafkaMessage(topic: names.checkpointsTopic, partition: 2, key: Array("head".utf8), value: Array("GTKC".utf8) + [1, 0, 0])])
        #expect(throws: (any Error).self) { _ = try KafkaCheckpoint.load(partition: 2, names: names, brokers: mock.bootstrapServers, clientId: "t") }
    }

    /// Topics made for another `--partitions` stop an instance at start with what is wrong: devices would be placed
    /// differently.
    @Test func topicsForAnotherPartitionCountAreRefused() throws {
        let mock = try MockCluster()
        let names = ClusterNames(prefix: "pc")
        for t in names.kafkaTopics(partitions: 4, replicationFactor: 1) { try mock.createTopic(t) }
        let producer = try KafkaProducer(brokers: mock.bootstrapServers, clientId: "test")
        try names.ensureTopics(on: producer, partitions: 4, replicationFactor: 1)
        do {
            try names.ensureTopics(on: producer, partitions: 6, replicationFactor: 1)
            Issue.record("topics of 4 partitions accepted for 6")
        } catch {
            #expect("\(error)".contains("pc.input has 4 partitions; this deployment needs 6"), "\(error)")
        }
    }

    @Test func kafkaAddressesParse() {
        #expect(ClusterConfiguration.brokers(fromJournal: "kafka://a:9092,b:9093") == ["a:9092", "b:9093"])
        #expect(ClusterConfiguration.brokers(fromJournal: "kafka://127.0.0.1:40000") == ["127.0.0.1:40000"])
        #expect(ClusterConfiguration.brokers(fromJournal: "kafka://a:1,,b:2") == nil)
        #expect(ClusterConfiguration.brokers(fromJournal: "kafka://a") == nil)
        #expect(ClusterConfiguration.brokers(fromJournal: "kafka://a:port") == nil)
        #expect(ClusterConfiguration.brokers(fromJournal: "nats://a:4222") == nil)
        #expect(ClusterConfiguration.servers(fromJournal: "kafka://a:9092") == nil)
    }
}
