import Kafka

/// The requests topic's one partition read from an offset; sequences are offsets + 1, as the follower counts.
struct KafkaRequestsReader: OrderedLogReader {
    let reader: KafkaPartitionReader

    init(brokers: String, instance: String, names: ClusterNames, from sequence: UInt64) throws {
        reader = try KafkaPartitionReader(brokers: brokers, clientId: "\(instance)-requests", topic: names.requestsTopic, partition: 0,
                                          from: Int64(max(1, sequence)) - 1)
    }

    func fetch(_ count: Int, timeout: Duration) throws -> [LogEntry] {
        try reader.fetch(count, timeout: timeout).map { LogEntry(sequence: UInt64($0.offset + 1), data: $0.value) }
    }
}
