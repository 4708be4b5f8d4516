import BlockingCalls
import Synchronization

/// Group commit for the input log: at most one write per partition is in flight from this instance, and the parts
/// of concurrent batches that arrive for a partition meanwhile go out together when it is answered, joined into as
/// few messages as `ClusterInput.merged` can make. Under load the log then takes fewer, larger messages (what a
/// message costs the log's servers is mostly per message, BENCHMARKS §7); a lone batch is written at once, as before.
/// Each part's caller is answered with its own message's outcome.
final class CoalescingAppender: Sendable {
    /// Writes one message to a partition (blocking; on a `BlockingCalls` thread): nil once stored, or why not.
    typealias Write = @Sendable (_ partition: Int, _ data: [UInt8]) -> ClusterError?

    private struct Waiting {
        var data: [UInt8]
        var answer: CheckedContinuation<ClusterError?, Never>
    }

    private struct Queue {
        var writing = false
        var waiting: [Waiting] = []
    }

    /// A partition's queue (a class: a `Mutex` cannot be an array's element).
    private final class Lane: Sendable {
        let queue = Mutex(Queue())
    }

    private let lanes: [Lane]
    private let write: Write
    private let limit: Int

    /// - Parameter limit: the most bytes a joined message may have (below the log's largest message).
    init(partitions: Int, limit: Int, write: @escaping Write) {
        lanes = (0..<partitions).map { _ in Lane() }
        self.write = write
        self.limit = limit
    }

    /// Appends one encoded input to `partition`; returns once it is stored (nil) or could not be.
    func append(partition: Int, data: [UInt8]) async -> ClusterError? {
        await withCheckedContinuation { answer in
            let lead = lanes[partition].queue.withLock { q in
                q.waiting.append(Waiting(data: data, answer: answer))
                if q.writing { return false }
                q.writing = true
                return true
            }
            if lead { BlockingCalls.submit { [self] in drain(partition) } }
        }
    }

    /// Inputs waiting for `partition` behind the write in flight (the tests wait on it).
    func waiting(_ partition: Int) -> Int { lanes[partition].queue.withLock { $0.waiting.count } }

    /// Writes what is waiting for `partition` until nothing is; the one writer of that partition meanwhile.
    private func drain(_ partition: Int) {
        while true {
            let batch = lanes[partition].queue.withLock { q in
                let b = q.waiting
                q.waiting.removeAll(keepingCapacity: true)
                if b.isEmpty { q.writing = false }
                return b
            }
            if batch.isEmpty { return }
            for (data, inputs) in ClusterInput.merged(batch.map { $0.data }, limit: limit) {
                let failure = write(partition, data)
                for w in batch[inputs] { w.answer.resume(returning: failure) }
            }
        }
    }
}
