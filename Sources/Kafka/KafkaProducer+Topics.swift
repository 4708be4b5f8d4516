import CKafka

extension KafkaProducer {
    /// Every topic of the cluster and its partition count.
    public func partitionCounts(timeout: Duration = .seconds(10)) throws(KafkaError) -> [String: Int] {
        try KafkaHandle.partitionCounts(handle, timeout: timeout)
    }

    /// The partition's first stored offset and the offset its next message will get.
    public func watermarks(topic: String, partition: Int, timeout: Duration = .seconds(10)) throws(KafkaError) -> (low: Int64, high: Int64) {
        try KafkaHandle.watermarks(handle, topic: topic, partition: partition, timeout: timeout)
    }

    /// The offset the partition's next message will get.
    public func endOffset(topic: String, partition: Int, timeout: Duration = .seconds(10)) throws(KafkaError) -> Int64 {
        try KafkaHandle.watermarks(handle, topic: topic, partition: partition, timeout: timeout).high
    }

    /// Creates the topics through the admin API; one that exists already is not an error.
    public func createTopics(_ topics: [KafkaTopic], timeout: Duration = .seconds(15)) throws(KafkaError) {
        guard !topics.isEmpty else { return }
        var error = [CChar](repeating: 0, count: 512)
        var newTopics: [OpaquePointer?] = []
        defer { for t in newTopics { rd_kafka_NewTopic_destroy(t) } }
        for t in topics {
            guard let n = rd_kafka_NewTopic_new(t.name, Int32(t.partitions), Int32(t.replicationFactor), &error, error.count) else {
                throw KafkaError("topic \(t.name)", kind: .configuration, detail: KafkaSettings.text(error))
            }
            newTopics.append(n)
            for (name, value) in t.config.sorted(by: { $0.key < $1.key }) {
                try check("topic \(t.name) setting \(name)", rd_kafka_NewTopic_set_config(n, name, value))
            }
        }
        let queue = rd_kafka_queue_new(handle)
        defer { rd_kafka_queue_destroy(queue) }
        let options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_CREATETOPICS)
        defer { rd_kafka_AdminOptions_destroy(options) }
        _ = rd_kafka_AdminOptions_set_request_timeout(options, Int32(timeout.milliseconds), &error, error.count)
        newTopics.withUnsafeMutableBufferPointer { b in
            rd_kafka_CreateTopics(handle, b.baseAddress, b.count, options, queue)
        }
        guard let event = rd_kafka_queue_poll(queue, Int32(timeout.milliseconds) + 1000) else {
            throw KafkaError("creating topics \(topics.map(\.name))", kind: .timeout, detail: "no answer within \(timeout)")
        }
        defer { rd_kafka_event_destroy(event) }
        let code = rd_kafka_event_error(event)
        if code != RD_KAFKA_RESP_ERR_NO_ERROR {
            throw KafkaError("creating topics \(topics.map(\.name))", kind: .other, detail: String(cString: rd_kafka_event_error_string(event)))
        }
        var count = 0
        guard let results = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count) else { return }
        for k in 0..<count {
            let r = results[k]
            let e = rd_kafka_topic_result_error(r)
            guard e != RD_KAFKA_RESP_ERR_NO_ERROR, e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS else { continue }
            throw KafkaError("creating topic \(String(cString: rd_kafka_topic_result_name(r)))", code: e)
        }
    }
}
