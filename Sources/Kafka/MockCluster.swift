import CKafka

/// librdkafka's in-process mock Kafka cluster (`rdkafka_mock.h`): brokers on loopback ports that other processes
/// can connect to, with topics, consumer groups and committed offsets, kept in memory and not replicated. Debian 12
/// packages no Kafka broker: the tests run against this. Gone (brokers closed) when this object goes.
public final class MockCluster: @unchecked Sendable {
    private let handle: OpaquePointer
    private let cluster: OpaquePointer
    /// `host:port,…`: what clients put in `bootstrap.servers`.
    public let bootstrapServers: String

    public init(brokers: Int = 1) throws(KafkaError) {
        // The mock lives inside a client handle; this one never connects anywhere itself.
        let conf = try KafkaSettings([("log_level", "3")]).makeConf()
        handle = try KafkaSettings.makeHandle(RD_KAFKA_PRODUCER, conf, what: "mock cluster's handle")
        guard let c = rd_kafka_mock_cluster_new(handle, Int32(brokers)) else {
            rd_kafka_destroy(handle)
            throw KafkaError("starting a mock cluster of \(brokers) brokers", kind: .other, detail: "rd_kafka_mock_cluster_new failed")
        }
        cluster = c
        bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(c))
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)
        rd_kafka_destroy(handle)
    }

    /// Creates a topic directly in the mock: it names no controller, so the admin API's CreateTopics cannot reach it
    /// (librdkafka 2.0.2: "Failed while waiting for controller").
    public func createTopic(_ topic: KafkaTopic) throws(KafkaError) {
        try check("mock topic \(topic.name)", rd_kafka_mock_topic_create(cluster, topic.name, Int32(topic.partitions), Int32(topic.replicationFactor)))
    }
}
