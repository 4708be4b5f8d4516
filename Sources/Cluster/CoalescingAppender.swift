import BlockingCalls
import Synchronization

/// Group commit for the input log: this instance writes in rounds, one at a time. A round writes everything that
/// waited for it, a message per partition where `ClusterInput.merged` can join the parts (the parts of concurrent
/// batches for one partition), and the parts that arrive while it is in flight wait for the next. A lone batch is
/// written at once, as before; under load the rounds take longer and carry more, so the log takes fewer, larger
/// messages (what a message costs the log's servers is mostly per message, BENCHMARKS §7). Each part's caller is
/// answered with its round's outcome.
final class CoalescingAppender: Sendable {
    /// Writes one round's messages (blocking; on a `BlockingCalls` thread): nil once every one is stored, or why
    /// not (then none of the round's callers is told its part was stored).
    typealias Write = @Sendable (_ messages: [(partition: Int, data: [UInt8])]) -> ClusterError?

    private struct Waiting {
        var partition: Int
        var data: [UInt8]
        var answer: CheckedContinuation<ClusterError?, Never>
    }

    private struct State {
        var writing = false
        var waiting: [Waiting] = []
    }

    private let state = Mutex(State())
    private let write: Write
    private let limit: Int

    /// - Parameter limit: the most bytes a joined message may have (below the log's largest message).
    init(limit: Int, write: @escaping Write) {
        self.write = write
        self.limit = limit
    }

    /// Appends one encoded input to `partition`; returns once it is stored (nil) or could not be.
    func append(partition: Int, data: [UInt8]) async -> ClusterError? {
        await withCheckedContinuation { answer in
            let lead = state.withLock { s in
                s.waiting.append(Waiting(partition: partition, data: data, answer: answer))
                if s.writing { return false }
                s.writing = true
                return true
            }
            if lead { BlockingCalls.submit { [self] in drain() } }
        }
    }

    /// Inputs waiting behind the round in flight (the tests wait on it).
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Writes rounds until nothing waits; the one writer meanwhile.
    private func drain() {
        while true {
            let batch = state.withLock { s in
                let b = s.waiting
                s.waiting.removeAll(keepingCapacity: true)
                if b.isEmpty { s.writing = false }
                return b
            }
            if batch.isEmpty { return }
            var byPartition: [Int: [Int]] = [:]
            var order: [Int] = []
            for (k, w) in batch.enumerated() {
                if byPartition[w.partition] == nil { order.append(w.partition) }
                byPartition[w.partition, default: []].append(k)
            }
            var messages: [(partition: Int, data: [UInt8])] = []
            for p in order {
                let members = byPartition[p]!
                for (data, _) in ClusterInput.merged(members.map { batch[$0].data }, limit: limit) { messages.append((p, data)) }
            }
            let failure = write(messages)
            for w in batch { w.answer.resume(returning: failure) }
        }
    }
}
