import Dispatch

/// The one pool of threads for blocking C calls made from async code (nats.c requests, librdkafka produces):
/// bounded, so a burst of requests queues rather than starting a thread each, and off Swift's cooperative pool,
/// whose few threads must never wait on the network.
public enum BlockingCalls {
    private static let queue = DispatchQueue(label: "geotrigger.blocking", attributes: .concurrent)
    private static let slots = DispatchSemaphore(value: 16)

    /// Runs `body` on a pool thread and returns what it returned or threw.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { c in
            submit { c.resume(returning: Result { try body() }) }
        }
        return try result.get()
    }

    /// Runs `body` on a pool thread, for callers that resume their own continuation (typed errors).
    public static func submit(_ body: @escaping @Sendable () -> Void) {
        queue.async {
            slots.wait()
            defer { slots.signal() }
            body()
        }
    }
}
