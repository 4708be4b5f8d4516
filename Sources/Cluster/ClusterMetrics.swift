import Metrics

/// The cluster's counters, one set per process.
struct ClusterMetrics: Sendable {
    let evaluated = Counter(label: "geotrigger_cluster_evaluated_inputs_total")
    let notifications = Counter(label: "geotrigger_cluster_notifications_total")
    let rejected = Counter(label: "geotrigger_cluster_rejected_records_total")
    let undecodable = Counter(label: "geotrigger_cluster_undecodable_inputs_total")
    let checkpoints = Counter(label: "geotrigger_cluster_checkpoints_total")
    let checkpointSeconds = Timer(label: "geotrigger_cluster_checkpoint_seconds")
    let partitionRestarts = Counter(label: "geotrigger_cluster_partition_restarts_total")
    /// JetStream: input consumers found stalled or skipping (each restarts its partition from a checkpoint).
    let consumersLost = Counter(label: "geotrigger_cluster_input_consumers_lost_total")
    /// JetStream: inputs a partition's stream no longer held when its owner came to read them (removed by an operator).
    let inputsAbsent = Counter(label: "geotrigger_cluster_inputs_absent_total")
    let owned = Gauge(label: "geotrigger_cluster_owned_partitions")
    let suppressedOnce = Counter(label: "geotrigger_cluster_suppressed_once_total")
    let leaseLosses = Counter(label: "geotrigger_cluster_lease_losses_total")
    /// Partitions whose workers are winding down (handing over, or abandoned and not yet returned).
    let stopping = Gauge(label: "geotrigger_cluster_stopping_partitions")
    /// Calls of the lease keeper (renewal, heartbeat, member count, connect) that failed or timed out.
    let leaseCallFailures = Counter(label: "geotrigger_cluster_lease_call_failures_total")
    /// Kafka: notifications a takeover fired again and did not publish (its predecessor had).
    let repeatsSkipped = Counter(label: "geotrigger_cluster_repeats_skipped_total")
}
