import Synchronization

/// Wakes the outbox dispatcher after a commit that added notifications. Wake-ups coalesce: the dispatcher reads
/// everything pending each time, so one buffered wake-up is enough.
public final class OutboxSignal: Sendable {
    public let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let replays = Atomic<Int>(0)

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func notify() { continuation.yield() }
    public func finish() { continuation.finish() }

    /// A dead letter's replay was asked for: the sink workers look in the database for replays only after one
    /// (and once at start), not on every wake-up (a query per delivered batch was ~2 % of `serve`'s CPU at 700k
    /// fixes/s).
    public func requestReplays() {
        replays.add(1, ordering: .releasing)
        notify()
    }

    /// How many replay requests there have been; a worker compares it with the count it last looked at.
    public var replayRequests: Int { replays.load(ordering: .acquiring) }
}
