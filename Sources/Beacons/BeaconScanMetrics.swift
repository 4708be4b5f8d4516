import Metrics

/// The scan pipeline's counters, through the swift-metrics facade (the executable chooses the backend; `serve`
/// exports them on `/metrics`). Made once per pipeline, so counting a report allocates nothing.
public struct BeaconScanMetrics: Sendable {
    /// Advertisements that differ from the specification but were decoded anyway, by `quirk`:
    /// `oversized_legacy` (legacy data over 31 bytes), `truncated` (the controller cut an extended advertisement
    /// short; what arrived was decoded), `abandoned` (fragments dropped when their advertisement never finished).
    public let oversizedLegacy: Counter
    public let truncated: Counter
    public let abandoned: Counter
    /// Advertisements joined from several extended-report fragments.
    public let reassembled: Counter
    /// HCI events that could not be parsed (skipped): counted here by the replay path; a live `HCIScanner` parses
    /// its own events and counts them in `malformedEvents`, which its owner adds here.
    public let malformedEvents: Counter

    public static let quirksLabel = "geotrigger_bluetooth_quirks_total"
    public static let reassembledLabel = "geotrigger_bluetooth_reassembled_total"
    public static let malformedLabel = "geotrigger_bluetooth_malformed_events_total"

    /// `dimensions` name the source, e.g. `[("adapter", "hci0")]`.
    public init(dimensions: [(String, String)] = [], factory: MetricsFactory = MetricsSystem.factory) {
        func quirk(_ name: String) -> Counter {
            Counter(label: Self.quirksLabel, dimensions: dimensions + [("quirk", name)], factory: factory)
        }
        oversizedLegacy = quirk("oversized_legacy")
        truncated = quirk("truncated")
        abandoned = quirk("abandoned")
        reassembled = Counter(label: Self.reassembledLabel, dimensions: dimensions, factory: factory)
        malformedEvents = Counter(label: Self.malformedLabel, dimensions: dimensions, factory: factory)
    }
}
