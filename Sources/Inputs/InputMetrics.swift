import Metrics

/// What every input counts, whichever way it came in (HTTP bodies, streams, MQTT, Bluetooth).
public struct InputMetrics: Sendable {
    public init() {}

    /// Rejected input by reason: engine reasons (`late`, `duplicate`, …) and decoder kinds alike.
    public func rejected(_ reason: String, count: Int = 1) {
        Counter(label: "geotrigger_rejections_total", dimensions: [("reason", reason)]).increment(by: count)
    }
}
