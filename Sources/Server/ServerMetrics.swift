import Metrics
import TriggerEngine

/// The service's metrics, emitted through the swift-metrics facade: the executable picks the backend.
struct ServerMetrics: Sendable {
    let fixes = Counter(label: "geotrigger_fixes_total")
    let sightings = Counter(label: "geotrigger_sightings_total")
    let notifications = Counter(label: "geotrigger_notifications_total")
    /// Transitions the engine counted (dwell-delayed entries when the dwell completes), fired or not.
    let entries = Counter(label: "geotrigger_transitions_total", dimensions: [("event", "entry")])
    let exits = Counter(label: "geotrigger_transitions_total", dimensions: [("event", "exit")])
    /// Evaluating one batch in the engine (no storage).
    let evaluation = Metrics.Timer(label: "geotrigger_evaluation_seconds", preferredDisplayUnit: .seconds)
    /// Writing one batch's SQLite transaction, commit (fsync) included.
    let commit = Metrics.Timer(label: "geotrigger_commit_seconds", preferredDisplayUnit: .seconds)

    /// Rejected input by reason: engine reasons (`late`, `duplicate`, …) and decoder kinds alike.
    func rejected(_ reason: String, count: Int = 1) {
        Counter(label: "geotrigger_rejections_total", dimensions: [("reason", reason)]).increment(by: count)
    }

    /// Requests answered with a 4xx problem (malformed HTTP or JSON, a body over the limit, cut off or too slow,
    /// an unknown route or request…), by status.
    func clientError(status: Int) {
        Counter(label: "geotrigger_http_client_errors_total", dimensions: [("status", String(status))]).increment()
    }

    /// Connections closed (header, idle) or answered 408 (body) for taking too long.
    func connectionTimeout(_ phase: String) {
        Counter(label: "geotrigger_http_timeouts_total", dimensions: [("phase", phase)]).increment()
    }
}
