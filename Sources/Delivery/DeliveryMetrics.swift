import Metrics

/// One sink's delivery metrics, through the swift-metrics facade (the executable picks the backend).
struct DeliveryMetrics: Sendable {
    let deliveries: Counter
    let retries: Counter
    let retryableFailures: Counter
    let permanentFailures: Counter
    let deadLetters: Counter
    let replays: Counter
    /// Fired (entered the outbox) → acknowledged by the sink.
    let latency: Metrics.Timer
    let depth: Gauge

    init(sink: String) {
        let d = [("sink", sink)]
        deliveries = Counter(label: "geotrigger_deliveries_total", dimensions: d)
        retries = Counter(label: "geotrigger_delivery_retries_total", dimensions: d)
        retryableFailures = Counter(label: "geotrigger_delivery_failures_total", dimensions: d + [("kind", "retryable")])
        permanentFailures = Counter(label: "geotrigger_delivery_failures_total", dimensions: d + [("kind", "permanent")])
        deadLetters = Counter(label: "geotrigger_dead_letters_total", dimensions: d)
        replays = Counter(label: "geotrigger_dead_letter_replays_total", dimensions: d)
        latency = Metrics.Timer(label: "geotrigger_delivery_latency_seconds", dimensions: d, preferredDisplayUnit: .seconds)
        depth = Gauge(label: "geotrigger_outbox_sink_depth", dimensions: d)
    }
}
