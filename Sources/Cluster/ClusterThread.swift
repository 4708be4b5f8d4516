import Dispatch
import Foundation
import Synchronization

/// A long-lived thread of a cluster instance (a partition's owner, the lease keeper, the consumer-group member): it
/// runs one loop until asked to stop. Blocking client calls (nats.c, librdkafka) run there, off Swift's cooperative
/// pool. The stop says how: hand over (checkpoint first, so the next owner replays nothing) or at once (ownership is
/// already lost, another instance may be writing).
final class ClusterThread: Sendable {
    enum Stop: Int {
        case running = 0, handOver = 1, now = 2
    }

    private let state = Atomic<Int>(Stop.running.rawValue)
    private let done = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `loop` on a thread called `name`.
    func start(_ name: String, _ loop: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            loop()
            done.store(true, ordering: .releasing)
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Asks the loop to stop and returns at once. A later `.now` overrides an earlier `.handOver` (a handover that
    /// outlived its lease must not write), never the other way round.
    func requestStop(_ how: Stop) {
        var current = state.load(ordering: .acquiring)
        while current < how.rawValue {
            let (exchanged, original) = state.compareExchange(expected: current, desired: how.rawValue, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// Asks the loop to stop and waits until it has, or `bound` has passed; returns whether it has.
    func stop(_ how: Stop, within bound: Duration) -> Bool {
        requestStop(how)
        guard finished.wait(timeout: .now() + .nanoseconds(Int(bound.nanoseconds))) == .success else {
            return false
        }
        finished.signal()
        return true
    }

    /// Asks the loop to stop and waits until it has.
    func stop(_ how: Stop) {
        requestStop(how)
        finished.wait()
        finished.signal()
    }

    /// Whether the loop has returned.
    var isFinished: Bool { done.load(ordering: .acquiring) }

    /// What was asked: `.running` until a stop.
    var requested: Stop { Stop(rawValue: state.load(ordering: .acquiring)) ?? .now }
    var stopRequested: Bool { requested != .running }
}
