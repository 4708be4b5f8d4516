import Foundation

/// The delivery reports of one `KafkaProducer.send`: each message holds a reference (retained when produced,
/// released by its report), and the sender waits until every report arrived.
final class DeliveryBatch: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var remaining: Int
    private var failures: [String] = []
    private var offsets: [Int64]

    init(count: Int) {
        remaining = count
        offsets = Array(repeating: -1, count: count)
    }

    /// Called from librdkafka's delivery-report callback (the producer's polling thread).
    func report(index: Int, offset: Int64, failure: String?) {
        condition.withLock {
            if let failure { failures.append(failure) } else { offsets[index] = offset }
            remaining -= 1
            if remaining == 0 { condition.broadcast() }
        }
    }

    /// A message that was never queued gets no report: it counts as failed here.
    func refused(_ reason: String) { report(index: 0, offset: -1, failure: reason) }

    /// Waits for every report; the stored offsets in message order, or the first failure.
    func wait(until deadline: Date) -> Result<[Int64], KafkaError> {
        condition.lock()
        defer { condition.unlock() }
        while remaining > 0 {
            if !condition.wait(until: deadline) {
                return .failure(KafkaError("waiting for delivery reports", kind: .timeout, detail: "\(remaining) of \(offsets.count) unacknowledged"))
            }
        }
        if let first = failures.first {
            return .failure(KafkaError("delivery", kind: .delivery, detail: "\(failures.count) of \(offsets.count) not stored, first: \(first)"))
        }
        return .success(offsets)
    }
}
