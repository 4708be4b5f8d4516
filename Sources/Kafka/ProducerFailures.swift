import Synchronization

/// Failed deliveries of queued (`produce`) messages, counted by the delivery-report callback, and whether
/// librdkafka said every broker is down (its error callback).
final class ProducerFailures: Sendable {
    private let count = Atomic<Int>(0)
    private let last = Mutex<String?>(nil)
    let allBrokersDown = Atomic<Bool>(false)

    func record(_ reason: String) {
        count.add(1, ordering: .relaxed)
        last.withLock { $0 = reason }
    }

    func take() -> Int { count.exchange(0, ordering: .acquiringAndReleasing) }
}
