import Metrics
import TriggerEngine

/// The HTTP side's metrics, emitted through the swift-metrics facade (the host counts fixes, notifications and the
/// journal: `HostMetrics`; every input its rejections: `InputMetrics`).
struct ServerMetrics: Sendable {
    /// Requests answered with a 4xx problem (malformed HTTP or JSON, a body over the limit, cut off or too slow,
    /// an unknown route or request…), by status.
    func clientError(status: Int) {
        Counter(label: "geotrigger_http_client_errors_total", dimensions: [("status", String(status))]).increment()
    }

    /// Requests that presented a valid credential, by its scope (`admin`, `ingest`, `read`, `device`).
    func authenticated(scope: String) {
        Counter(label: "geotrigger_auth_requests_total", dimensions: [("scope", scope)]).increment()
    }

    /// Requests refused for their credential: 401 (`missing`, `unknown`, `revoked`, `mismatch`) and 403 (`scope`: the
    /// route needs another; `device`: a device credential named another device).
    func authenticationRefused(_ reason: String) {
        Counter(label: "geotrigger_auth_refusals_total", dimensions: [("reason", reason)]).increment()
    }

    /// Connections closed at once because their address held `http.maxConnectionsPerAddress` already.
    func connectionRefused() {
        Counter(label: "geotrigger_http_refused_connections_total").increment()
    }

    /// Connections closed (header, idle) or answered 408 (body) for taking too long.
    func connectionTimeout(_ phase: String) {
        Counter(label: "geotrigger_http_timeouts_total", dimensions: [("phase", phase)]).increment()
    }
}
