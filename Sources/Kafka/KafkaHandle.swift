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

    /// A consumed message as a record.
    static func record(_ message: UnsafeMutablePointer<rd_kafka_message_t>) -> KafkaRecord {
        let m = message.pointee
        let value = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: m.len)) } ?? []
        let key = m.key.map { Array(UnsafeRawBufferPointer(start: $0, count: m.key_len)) }
        var headers: [String: [UInt8]] = [:]
        var list: OpaquePointer?
        if rd_kafka_message_headers(message, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list {
            var index = 0
            var name: UnsafePointer<CChar>?
            var pointer: UnsafeRawPointer?
            var size = 0
            while rd_kafka_header_get_all(list, index, &name, &pointer, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
                if let name { headers[String(cString: name)] = pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? [] }
                index += 1
            }
        }
        return KafkaRecord(partition: Int(m.partition), offset: m.offset, key: key, value: value, headers: headers)
    }
}
