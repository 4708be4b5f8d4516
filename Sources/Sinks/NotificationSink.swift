
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
