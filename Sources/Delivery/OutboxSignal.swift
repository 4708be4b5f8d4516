/// Wakes the outbox dispatcher after a commit that added notifications. Wake-ups coalesce: the dispatcher reads
/// everything pending each time, so one buffered wake-up is enough.
public final class OutboxSignal: Sendable {
    public let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func notify() { continuation.yield() }
    public func finish() { continuation.finish() }
}
