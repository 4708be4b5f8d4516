import Sinks

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
