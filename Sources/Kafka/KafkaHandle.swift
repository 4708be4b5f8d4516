import CKafka

/// Calls that any client handle answers (producer or consumer): a partition's offsets, the topics and their
/// partition counts.
enum KafkaHandle {
    /// The partition's low and high watermarks: the first offset still stored and the offset the next message gets.
    static func watermarks(_ handle: OpaquePointer, topic: String, partition: Int, timeout: Duration) throws(KafkaError) -> (low: Int64, high: Int64) {
        var low: Int64 = 0, high: Int64 = 0
        try check("watermarks of \(topic) [\(partition)]",
                  rd_kafka_query_watermark_offsets(handle, topic, Int32(partition), &low, &high, Int32(timeout.milliseconds)))
        return (low, high)
    }

    /// Every topic the cluster has and its partition count (all topics are asked for, so no broker creates one
    /// just because it was named).
    static func partitionCounts(_ handle: OpaquePointer, timeout: Duration) throws(KafkaError) -> [String: Int] {
        var metadata: UnsafePointer<rd_kafka_metadata_t>?
        try check("metadata", rd_kafka_metadata(handle, 1, nil, &metadata, Int32(timeout.milliseconds)))
        defer { rd_kafka_metadata_destroy(metadata) }
        var counts: [String: Int] = [:]
        guard let m = metadata?.pointee else { return counts }
        for k in 0..<Int(m.topic_cnt) {
            let t = m.topics[k]
            if t.err == RD_KAFKA_RESP_ERR_NO_ERROR { counts[String(cString: t.topic)] = Int(t.partition_cnt) }
        }
        return counts
    }

    /// A consumed message as a record; `header` names the header whose value is wanted.
    static func record(_ m: rd_kafka_message_t, header: String?, message: UnsafeMutablePointer<rd_kafka_message_t>) -> KafkaRecord {
        let value = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: m.len)) } ?? []
        let key = m.key.map { Array(UnsafeRawBufferPointer(start: $0, count: m.key_len)) }
        var headerValue: [UInt8]?
        if let header {
            var headers: OpaquePointer?
            if rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR, let headers {
                var pointer: UnsafeRawPointer?
                var size = 0
                if rd_kafka_header_get_last(headers, header, &pointer, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
                    headerValue = pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
                }
            }
        }
        return KafkaRecord(partition: Int(m.partition), offset: m.offset, key: key, value: value, header: headerValue)
    }
}
