import Foundation
import Synchronization

/// Watches `/v1/cluster` of every instance (every 100 ms, on a thread of its own) and measures how long a partition
/// stays listed by two instances at once: what an operator sees while ownership moves. A measurement, printed by the
/// failover test, not asserted on: its figures depend on the machine's load.
final class OwnershipOverlap: Sendable {
    private let state = Mutex<(since: [Int: ContinuousClock.Instant], longest: Duration, episodes: Int, stopped: Bool)>(([:], .zero, 0, false))
    private let finished = DispatchSemaphore(value: 0)

    init(_ instances: [ServeInstance]) {
        let thread = Thread { [self] in
            while !state.withLock({ $0.stopped }) {
                let lists = instances.compactMap { $0.owned() }
                let now = ContinuousClock.now
                let counts = Dictionary(lists.joined().map { ($0, 1) }, uniquingKeysWith: +)
                state.withLock { s in
                    for (p, n) in counts where n > 1 && s.since[p] == nil { s.since[p] = now; s.episodes += 1 }
                    for (p, began) in s.since where (counts[p] ?? 0) < 2 {
                        s.longest = max(s.longest, now - began)
                        s.since[p] = nil
                    }
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            finished.signal()
        }
        thread.name = "ownership overlap"
        thread.start()
    }

    /// Stops watching: the longest time one partition was listed by two instances, and how many times one was.
    func stop() -> (longest: Duration, episodes: Int) {
        state.withLock { $0.stopped = true }
        finished.wait()
        return state.withLock { s in
            let now = ContinuousClock.now
            let open = s.since.values.map { now - $0 }.max() ?? .zero
            return (max(s.longest, open), s.episodes)
        }
    }
}
