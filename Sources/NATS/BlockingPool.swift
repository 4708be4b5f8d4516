import Dispatch

/// Threads for blocking nats.c calls, bounded so a burst of requests queues rather than starting a thread each.
final class BlockingPool: Sendable {
    static let shared = BlockingPool(width: 16)
    private let queue = DispatchQueue(label: "geotrigger.nats.blocking", attributes: .concurrent)
    private let slots: DispatchSemaphore

    init(width: Int) { slots = DispatchSemaphore(value: width) }

    func run(_ body: @escaping @Sendable () -> Void) {
        queue.async { [slots] in
            slots.wait()
            defer { slots.signal() }
            body()
        }
    }
}
