import Metrics
import TriggerEngine

/// The service's metrics, emitted through the swift-metrics facade: the executable picks the backend.
struct ServerMetrics: Sendable {
    let fixes = Counter(label: "geotrigger_fixes_total")
    let sightings = Counter(label: "geotrigger_sightings_total")
    let notifications = Counter(label: "geotrigger_notifications_total")

    /// Rejected input by reason: engine reasons (`late`, `duplicate`, …) and decoder kinds alike.
    func rejected(_ reason: String, count: Int = 1) {
        Counter(label: "geotrigger_rejections_total", dimensions: [("reason", reason)]).increment(by: count)
    }
}
