import Metrics

/// The host's metrics, through the swift-metrics facade (the executable picks the backend).
struct HostMetrics: Sendable {
    let fixes = Counter(label: "geotrigger_fixes_total")
    let sightings = Counter(label: "geotrigger_sightings_total")
    let notifications = Counter(label: "geotrigger_notifications_total")
    /// Transitions the engine counted (dwell-delayed entries when the dwell completes), fired or not.
    let entries = Counter(label: "geotrigger_transitions_total", dimensions: [("event", "entry")])
    let exits = Counter(label: "geotrigger_transitions_total", dimensions: [("event", "exit")])
    /// Evaluating one batch in the engine.
    let evaluation = Metrics.Timer(label: "geotrigger_evaluation_seconds", preferredDisplayUnit: .seconds)
    /// From a batch's record handed to the writer thread to an fsync covering it (the write and group commit included).
    let durable = Metrics.Timer(label: "geotrigger_journal_durable_seconds", preferredDisplayUnit: .seconds)
    let journalRecords = Counter(label: "geotrigger_journal_records_total")
    /// Clock ticks that changed nothing but the clock and so were not journaled on their own (`advance(to:)`).
    let ticksHeld = Counter(label: "geotrigger_clock_ticks_unjournaled_total")
    let journalBytes = Counter(label: "geotrigger_journal_bytes_total")
    /// Taking and writing one checkpoint.
    let checkpoint = Metrics.Timer(label: "geotrigger_checkpoint_seconds", preferredDisplayUnit: .seconds)
    let checkpointBytes = Gauge(label: "geotrigger_checkpoint_bytes")
    /// The last restart: checkpoint load plus journal replay.
    let restart = Gauge(label: "geotrigger_restart_seconds")
    /// Journal records recoveries (`--recover`) gave up, this start's and earlier ones': non-zero means acknowledged
    /// input was lost to damage, and the log and `skipped.ranges` in the journal folder say which.
    let skippedRecords = Gauge(label: "geotrigger_journal_skipped_records")
    /// Files, checkpoints and ranges the last start skipped or moved aside (with `--recover`).
    let recoverySkipped = Gauge(label: "geotrigger_recovery_skipped_items")
    /// Notifications written to the journal and not yet in the outbox table.
    let feedBacklog = Gauge(label: "geotrigger_outbox_feed_backlog")
}
