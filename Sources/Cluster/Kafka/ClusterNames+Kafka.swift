import Kafka

/// The Kafka topics and group of a deployment, under the same prefix as its JetStream names.
extension ClusterNames {
    /// Fixes and sightings: P partitions, keyed by device (murmur2, as the Java client places keys).
    public var inputTopic: String { "\(prefix).input" }
    /// Request changes: one partition, read completely by every instance; kept for ever.
    public var requestsTopic: String { "\(prefix).requests" }
    /// Fired notifications: P partitions, partition p written only by partition p's owner, keyed by device, the
    /// deliveryId and the firing input's offset in headers.
    public var notificationsTopic: String { "\(prefix).notifications" }
    /// Partition checkpoints: P partitions (partition p's in p), compacted.
    public var checkpointsTopic: String { "\(prefix).checkpoints" }
    /// Claims of `repeats: false` firings: one partition; the first claim of a key in the log wins.
    public var onceTopic: String { "\(prefix).once" }
    /// The consumer group whose assignment says which instance owns which input partition.
    public var consumerGroup: String { prefix }
    /// The header that carries a notification's deliveryId.
    public static let deliveryIdHeader = "deliveryId"
    /// The header that carries the offset of the input that fired a notification (decimal): a takeover skips only
    /// what inputs after its checkpoint fired.
    public static let inputOffsetHeader = "inputOffset"

    public func kafkaTopics(partitions: Int, replicationFactor: Int) -> [KafkaTopic] {
        let forever = ["retention.ms": "-1", "retention.bytes": "-1"]
        return [
            KafkaTopic(name: inputTopic, partitions: partitions, replicationFactor: replicationFactor),
            KafkaTopic(name: requestsTopic, partitions: 1, replicationFactor: replicationFactor, config: forever),
            KafkaTopic(name: notificationsTopic, partitions: partitions, replicationFactor: replicationFactor),
            KafkaTopic(name: checkpointsTopic, partitions: partitions, replicationFactor: replicationFactor, config: ["cleanup.policy": "compact"]),
            KafkaTopic(name: onceTopic, partitions: 1, replicationFactor: replicationFactor, config: forever),
        ]
    }

    /// Creates the topics that are missing and checks every one's partition count: a deployment's topics must have
    /// been made for the same `--partitions` (devices are placed by it).
    public func ensureTopics(on producer: KafkaProducer, partitions: Int, replicationFactor: Int) throws {
        let wanted = kafkaTopics(partitions: partitions, replicationFactor: replicationFactor)
        var counts = try producer.partitionCounts()
        let missing = wanted.filter { counts[$0.name] == nil }
        if !missing.isEmpty {
            try producer.createTopics(missing)
            counts = try producer.partitionCounts()
        }
        for t in wanted {
            guard let n = counts[t.name] else { throw ClusterError.unavailable("topic \(t.name) not found after creating it") }
            guard n == t.partitions else {
                throw ClusterError.invalid("topic \(t.name) has \(n) partitions; this deployment needs \(t.partitions) (--partitions \(partitions))")
            }
        }
    }
}
