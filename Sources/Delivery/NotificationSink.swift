
/// Somewhere fired notifications go: a file, a webhook, a broker. The dispatcher calls `deliver` with one or more
/// outbox entries and counts them delivered only when it returns. A call holds the entries of one or more devices,
/// each device's in sequence order (with concurrency 1, all in global order); a device's entries are never in two
/// calls at once. It may call `deliver` concurrently, up to the concurrency the sink was configured with.
///
/// Delivery is at least once: an entry whose acknowledgement was lost (a timeout after the peer took it, a crash
/// before the acknowledgement was stored) is delivered again. Entries carry their `deliveryId` for deduplication.
public protocol NotificationSink: Sendable {
    /// Stable across restarts: the sink's cursor, acknowledgements and dead letters are stored under it.
    var name: String { get }

    /// Takes the entries as a whole. Throws `.retryable` when trying again later may succeed (the peer is down,
    /// busy or slow) and `.permanent` when it will not (the peer refuses these entries); the latter become dead
    /// letters.
    func deliver(_ entries: [OutboxEntry]) async throws(DeliveryFailure)

    /// The service is shutting down: deliveries in flight, and the last pass over the outbox, come next. A sink
    /// that cannot deliver now (its peer is unreachable) should make them fail at once rather than each wait for
    /// its timeout; what it does not take stays in the outbox for the next start.
    func shutdownStarted() async
}

extension NotificationSink {
    public func shutdownStarted() async {}
}

/// Why a sink did not take entries.
public enum DeliveryFailure: Error, Sendable, CustomStringConvertible {
    /// Try again after `after` (the peer said when, e.g. `Retry-After`) or after the dispatcher's backoff.
    case retryable(reason: String, after: Duration?)
    /// The peer refused the entries for good: `status` (HTTP status, if any) and its answer go to the dead letters.
    case permanent(reason: String, status: Int?, response: String)
    /// The first `delivered` entries were taken; `failure` is about the next one: `.permanent` makes only that
    /// entry a dead letter (the lane goes on with the rest), `.retryable` retries from it. For sinks that take
    /// entries one by one (a broker acknowledging each message), so one refusal never dead-letters a whole batch.
    indirect case partial(delivered: Int, failure: DeliveryFailure)

    public var description: String {
        switch self {
        case .partial(let delivered, let failure): "after \(delivered) delivered: \(failure)"
        case .retryable(let reason, let after): after.map { "\(reason) (retry after \($0))" } ?? reason
        case .permanent(let reason, let status, _): status.map { "\(reason) (status \($0))" } ?? reason
        }
    }
}

/// A sink with how the dispatcher drives it.
public struct ConfiguredSink: Sendable {
    public var sink: any NotificationSink
    /// Devices delivered at once. 1 delivers the whole outbox in sequence order through one lane (a file keeps
    /// the global firing order); more gives each device its own lane, in order per device.
    public var concurrency: Int
    /// Most entries per `deliver` call.
    public var batchSize: Int
    /// How long a batch that is not full waits, counted from the start of the lane's previous delivery, for more
    /// entries to join it (as Kafka's `linger.ms`). Zero sends at once. An idle sink adds no delay: the wait is over
    /// before it begins when the last delivery is older than this.
    public var linger: Duration

    public init(sink: any NotificationSink, concurrency: Int, batchSize: Int, linger: Duration = .zero) {
        self.sink = sink
        self.concurrency = max(1, concurrency)
        self.batchSize = max(1, batchSize)
        self.linger = max(.zero, linger)
    }
}
