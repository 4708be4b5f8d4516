import CKafka
import Synchronization

/// A member of a consumer group on one topic, used for what the group decides — which partitions this member
/// owns — and for committing offsets; it reads nothing itself (each assigned partition is paused at once, its
/// owner reads it with a `KafkaPartitionReader` from its checkpoint). Eager rebalancing: on every rebalance the
/// handler first hears `revoked` for everything owned, then `assigned` for the new share.
///
/// Callbacks run on the thread that calls `poll` (and in `close`, where the last revocation is served).
public final class KafkaGroupConsumer: @unchecked Sendable {
    public enum Rebalance: Sendable, Equatable {
        case assigned([Int])
        /// `lost`: the membership ended without a clean revocation (session timed out, fenced): another member may
        /// own these partitions already, so nothing more may be written for them.
        case revoked([Int], lost: Bool)
    }

    private let handle: OpaquePointer
    private let events: RebalanceEvents
    private let closed = Atomic<Bool>(false)
    public let topic: String

    /// Joins `group` and subscribes to `topic`; the first assignment arrives through `poll`.
    public init(brokers: String, group: String, clientId: String, topic: String, settings: KafkaSettings = KafkaSettings(),
                onRebalance: @escaping @Sendable (Rebalance) -> Void) throws(KafkaError) {
        self.topic = topic
        var all = KafkaSettings([
            ("bootstrap.servers", brokers), ("client.id", clientId), ("group.id", group),
            // Offsets are committed with the checkpoints, never on a timer.
            ("enable.auto.commit", "false"), ("enable.auto.offset.store", "false"),
        ])
        all.properties += settings.properties
        let conf = try all.makeConf()
        events = RebalanceEvents(onRebalance)
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(events).toOpaque())
        rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
        handle = try KafkaSettings.makeHandle(RD_KAFKA_CONSUMER, conf, what: "consumer of \(topic) in group \(group)")
        rd_kafka_poll_set_consumer(handle)
        let list = rd_kafka_topic_partition_list_new(1)!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        rd_kafka_topic_partition_list_add(list, topic, RD_KAFKA_PARTITION_UA)
        let code = rd_kafka_subscribe(handle, list)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            rd_kafka_destroy(handle)
            throw KafkaError("subscribe to \(topic)", code: code)
        }
    }

    deinit {
        close()
        rd_kafka_destroy(handle)
    }

    /// Serves the group's callbacks for up to `timeout`; a message that arrives anyway (the pause raced a fetch)
    /// is dropped, its partition's owner reads it.
    public func poll(timeout: Duration) {
        if let message = rd_kafka_consumer_poll(handle, Int32(timeout.milliseconds)) { rd_kafka_message_destroy(message) }
    }

    /// Commits `offset` (the next one to read) for `partition`: the group's position moves with the checkpoints.
    public func commit(partition: Int, offset: Int64) throws(KafkaError) {
        let list = rd_kafka_topic_partition_list_new(1)!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        rd_kafka_topic_partition_list_add(list, topic, Int32(partition)).pointee.offset = offset
        try check("commit \(topic) [\(partition)] at \(offset)", rd_kafka_commit(handle, list, 0))
    }

    /// The offsets the group committed for `partitions` (-1001, librdkafka's "invalid", where none).
    public func committed(_ partitions: [Int], timeout: Duration = .seconds(10)) throws(KafkaError) -> [Int: Int64] {
        let list = rd_kafka_topic_partition_list_new(Int32(partitions.count))!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for p in partitions { rd_kafka_topic_partition_list_add(list, topic, Int32(p)) }
        try check("committed offsets of \(topic)", rd_kafka_committed(handle, list, Int32(timeout.milliseconds)))
        var out: [Int: Int64] = [:]
        for k in 0..<Int(list.pointee.cnt) { out[Int(list.pointee.elems[k].partition)] = list.pointee.elems[k].offset }
        return out
    }

    /// Leaves the group (the handler hears the last revocation here, on this thread); once.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = rd_kafka_consumer_close(handle)
    }
}
