import Dispatch

/// Threads for blocking librdkafka calls made from async code, bounded so a burst of requests queues rather than
/// starting a thread each.
enum BlockingCalls {
    private static let queue = DispatchQueue(label: "geotrigger.cluster.blocking", attributes: .concurrent)
    private static let slots = DispatchSemaphore(value: 16)

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { c in
            queue.async {
                slots.wait()
                defer { slots.signal() }
                c.resume(returning: Result { try body() })
            }
        }
        return try result.get()
    }
}
