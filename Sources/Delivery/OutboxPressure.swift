import Logging
import Metrics
import Synchronization
import TriggerEngine

/// Back-pressure: how full the outbox is against its bounds (entries, age of the oldest), refreshed by the
/// dispatcher. Ingest asks `refusal()` before it evaluates anything: at a bound it answers 503 rather than accept
/// input whose notifications would have to be dropped. From 80 % of a bound it warns (log and gauge).
public final class OutboxPressure: Sendable {
    public enum Level: String, Sendable { case normal, warning, refusing }

    public struct Reading: Sendable {
        public var entries: Int
        public var oldest: Timestamp?
        public var level: Level
        /// The larger of entries/maximum and age/maximum age.
        public var fill: Double
    }

    public let maximumEntries: Int
    public let maximumAge: Duration
    /// Suggested wait for a refused client.
    public let retryAfterSeconds = 2
    private let state = Mutex(Reading(entries: 0, oldest: nil, level: .normal, fill: 0))
    private let logger: Logger
    private let entriesGauge = Gauge(label: "geotrigger_outbox_entries")
    private let ageGauge = Gauge(label: "geotrigger_outbox_oldest_age_seconds")
    private let fillGauge = Gauge(label: "geotrigger_outbox_fill_ratio")
    private let refusingGauge = Gauge(label: "geotrigger_outbox_refusing")
    private let refusals = Counter(label: "geotrigger_outbox_refused_requests_total")

    public init(maximumEntries: Int, maximumAge: Duration, logger: Logger) {
        self.maximumEntries = maximumEntries
        self.maximumAge = maximumAge
        self.logger = logger
    }

    public var reading: Reading { state.withLock { $0 } }

    /// Nil while ingest is accepted; otherwise why not.
    public func refusal() -> String? {
        let r = reading
        guard r.level == .refusing else { return nil }
        refusals.increment()
        return "the outbox is at its bound (\(r.entries) of \(maximumEntries) entries, oldest \(Self.age(r.oldest)) s of "
            + "\(Int(maximumAge.seconds)) s): sinks are behind; retry later"
    }

    /// Re-reads the outbox's extent (constant time).
    public func refresh(from outbox: JournalOutbox) {
        let extent = outbox.extent
        update(entries: extent.entries, oldest: extent.oldest)
    }

    func update(entries: Int, oldest: Timestamp?) {
        let age = oldest.map { Double(Timestamp.wallClock().microseconds - $0.microseconds) / 1e6 } ?? 0
        let fill = max(Double(entries) / Double(maximumEntries), max(age, 0) / maximumAge.seconds)
        let level: Level = fill >= 1 ? .refusing : fill >= 0.8 ? .warning : .normal
        let previous = state.withLock { s in
            let previous = s.level
            s = Reading(entries: entries, oldest: oldest, level: level, fill: fill)
            return previous
        }
        entriesGauge.record(entries)
        ageGauge.record(max(age, 0))
        fillGauge.record(fill)
        refusingGauge.record(level == .refusing ? 1 : 0)
        guard level != previous else { return }
        let metadata: Logger.Metadata = ["entries": "\(entries)", "maximumEntries": "\(maximumEntries)",
                                         "oldestAgeSeconds": "\(Int(age))", "maximumAgeSeconds": "\(Int(maximumAge.seconds))"]
        switch level {
        case .refusing: logger.error("outbox at its bound: refusing ingest (503) until sinks catch up", metadata: metadata)
        case .warning: logger.warning("outbox above 80 % of its bound: sinks are falling behind", metadata: metadata)
        case .normal: logger.notice("outbox back below 80 % of its bound", metadata: metadata)
        }
    }

    static func age(_ oldest: Timestamp?) -> Int {
        oldest.map { Int((Timestamp.wallClock().microseconds - $0.microseconds) / 1_000_000) } ?? 0
    }
}

extension Duration {
    var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
