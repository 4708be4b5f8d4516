import CKafka

/// The handler a rebalance callback reaches through librdkafka's opaque pointer.
final class RebalanceEvents: Sendable {
    let handler: @Sendable (KafkaGroupConsumer.Rebalance) -> Void
    init(_ handler: @escaping @Sendable (KafkaGroupConsumer.Rebalance) -> Void) { self.handler = handler }
}

/// librdkafka's rebalance callback (capture-free): applies the assignment — paused, nothing is read through the
/// group — and tells the handler; a revocation is told first and applied after, so owners stop before another
/// member can be given their partitions.
let rebalanceCallback: @convention(c) (OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?, UnsafeMutableRawPointer?) -> Void = { handle, error, list, opaque in
    guard let handle, let opaque else { return }
    let events = Unmanaged<RebalanceEvents>.fromOpaque(opaque).takeUnretainedValue()
    let partitions = list.map { l in (0..<Int(l.pointee.cnt)).map { Int(l.pointee.elems[$0].partition) } } ?? []
    switch error {
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
        _ = rd_kafka_assign(handle, list)
        if let list { _ = rd_kafka_pause_partitions(handle, list) }
        events.handler(.assigned(partitions.sorted()))
    case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
        events.handler(.revoked(partitions.sorted(), lost: rd_kafka_assignment_lost(handle) != 0))
        _ = rd_kafka_assign(handle, nil)
    default:
        // A rebalance error: nothing can be trusted to be ours any more.
        events.handler(.revoked(partitions.sorted(), lost: true))
        _ = rd_kafka_assign(handle, nil)
    }
}
