import Metrics

/// The event streams' metrics (`GET /v1/stream`), through the swift-metrics facade.
struct StreamMetrics: Sendable {
    /// Streams open now.
    let readers = Gauge(label: "geotrigger_stream_readers")
    /// Records handed to a reader's buffer (live), and records read again from the journal (a resume or a lag).
    let offered = Counter(label: "geotrigger_stream_records_total", dimensions: [("source", "live")])
    let replayed = Counter(label: "geotrigger_stream_records_total", dimensions: [("source", "journal")])
    /// Readers whose buffer overflowed: they were told, and read on from the journal.
    let lagged = Counter(label: "geotrigger_stream_lagged_total")
    /// Events written to readers (notifications and positions).
    let delivered = Counter(label: "geotrigger_stream_events_total")
}
