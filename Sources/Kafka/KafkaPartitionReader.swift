import CKafka

/// Reads one partition of a topic in order from a given offset, outside any consumer group (`assign`, nothing
/// committed): the reader keeps its own position (in its checkpoints), so after any failure it makes a new reader
/// from where it is. Reading from an offset no longer stored is an error, never a silent jump.
public final class KafkaPartitionReader: @unchecked Sendable {
    private let handle: OpaquePointer
    public let topic: String
    public let partition: Int
    /// The offset of the next record this reader returns (`beginning` until the first record or `readToEnd`).
    public private(set) var position: Int64

    /// The partition's first stored offset, whatever it is (`from: KafkaPartitionReader.beginning`).
    public static let beginning = Int64(RD_KAFKA_OFFSET_BEGINNING)

    public init(brokers: String, clientId: String, topic: String, partition: Int, from offset: Int64,
                settings: KafkaSettings = KafkaSettings()) throws(KafkaError) {
        self.topic = topic
        self.partition = partition
        position = offset
        var all = KafkaSettings([
            ("bootstrap.servers", brokers), ("client.id", clientId),
            // librdkafka's consumer queue needs a group id; this reader never joins or commits to it.
            ("group.id", "\(clientId)-reader"),
            ("enable.auto.commit", "false"), ("enable.auto.offset.store", "false"),
            ("auto.offset.reset", "error"),
        ])
        all.properties += settings.properties
        let conf = try all.makeConf()
        handle = try KafkaSettings.makeHandle(RD_KAFKA_CONSUMER, conf, what: "reader of \(topic) [\(partition)]")
        rd_kafka_poll_set_consumer(handle)
        let list = rd_kafka_topic_partition_list_new(1)!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        rd_kafka_topic_partition_list_add(list, topic, Int32(partition)).pointee.offset = offset
        let code = rd_kafka_assign(handle, list)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            rd_kafka_destroy(handle)
            throw KafkaError("assign \(topic) [\(partition)] from \(offset)", code: code)
        }
    }

    deinit {
        _ = rd_kafka_consumer_close(handle)
        rd_kafka_destroy(handle)
    }

    /// Up to `count` records in partition order, waiting up to `timeout` for the first; none when nothing is new.
    public func fetch(_ count: Int, timeout: Duration) throws(KafkaError) -> [KafkaRecord] {
        var out: [KafkaRecord] = []
        var wait = Int32(timeout.milliseconds)
        while out.count < count, let message = rd_kafka_consumer_poll(handle, wait) {
            defer { rd_kafka_message_destroy(message) }
            wait = 0
            let m = message.pointee
            switch m.err {
            case RD_KAFKA_RESP_ERR_NO_ERROR:
                out.append(KafkaHandle.record(message))
                position = m.offset + 1
            case RD_KAFKA_RESP_ERR__PARTITION_EOF, RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
                // librdkafka reconnects by itself; the position is unchanged.
                continue
            default:
                throw KafkaError("reading \(topic) [\(partition)]", code: m.err)
            }
        }
        return out
    }

    /// The offset the partition's next message will get.
    public func endOffset(timeout: Duration = .seconds(10)) throws(KafkaError) -> Int64 {
        try KafkaHandle.watermarks(handle, topic: topic, partition: partition, timeout: timeout).high
    }

    /// Every record from the reader's position up to the end as it is now.
    public func readToEnd(timeout: Duration = .seconds(30)) throws(KafkaError) -> [KafkaRecord] {
        let (low, end) = try KafkaHandle.watermarks(handle, topic: topic, partition: partition, timeout: .seconds(10))
        if position < 0 { position = low }
        var out: [KafkaRecord] = []
        let deadline = ContinuousClock.now + timeout
        while position < end {
            let batch = try fetch(1024, timeout: .milliseconds(200))
            out += batch
            if batch.isEmpty, ContinuousClock.now > deadline {
                throw KafkaError("reading \(topic) [\(partition)] to offset \(end)", kind: .timeout, detail: "stopped at \(position)")
            }
        }
        return out
    }
}
