import Dispatch
import Foundation
import Synchronization
import TriggerEngine

/// Renders, counts and writes a replay's notifications on a thread of its own, in the order they are handed over,
/// so evaluation (one core) overlaps with output (the other) as decoding already does (`TracePipeline`). In a
/// notification-dense replay (two thirds of the fixes fire) rendering, writing and counting were a third of the
/// evaluating thread's samples while the second core had little to do. The queue is bounded, so a slow output
/// slows evaluation instead of letting memory grow.
///
/// The sink and the tally belong to the thread from `start` until `finish` returns; only then may the caller read
/// them (`OutputSink.lines`).
final class NotificationWriterThread: @unchecked Sendable {
    private let sink: OutputSink
    private var tally = NotificationTally()
    private let queue = Mutex<[[FiredNotification]]>([])
    /// One signal per batch handed over, and one more from `finish`, which the thread takes with the queue empty.
    private let items = DispatchSemaphore(value: 0)
    private let slots: DispatchSemaphore
    private let done = DispatchSemaphore(value: 0)
    private var finished: NotificationTally?

    init(sink: OutputSink, depth: Int = 8) {
        self.sink = sink
        slots = DispatchSemaphore(value: depth)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "geotrigger-out"
        thread.start()
    }

    /// Hands a batch over, in order; waits while `depth` batches are queued.
    func submit(_ batch: [FiredNotification]) {
        guard !batch.isEmpty else { return }
        slots.wait()
        queue.withLock { $0.append(batch) }
        items.signal()
    }

    /// Waits until everything handed over is written and flushed; the notifications counted. Called once by the
    /// thread that submits (later calls return the same tally).
    func finish() -> NotificationTally {
        if let finished { return finished }
        items.signal()
        done.wait()
        finished = tally
        return tally
    }

    private func run() {
        while true {
            items.wait()
            guard let batch = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { break }
            slots.signal()
            for n in batch {
                tally.record(n)
                sink.write(n)
            }
        }
        sink.flush()
        done.signal()
    }
}
