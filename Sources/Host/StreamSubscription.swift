import DequeModule
import Synchronization

/// One reader's bounded buffer of live records. The hub only ever appends under the lock and never waits: a reader
/// that does not keep up overflows its own buffer, which is then emptied and marked lagged (the reader reads on
/// from the journal), so no reader slows the engine or another reader.
public final class StreamSubscription: Sendable {
    /// What the reader takes at a wake-up.
    public struct Taken: Sendable {
        public var records: [StreamRecord]
        /// The buffer overflowed since the last take: the records it held and those offered since were dropped.
        /// The reader reads them again from the journal, up to `offeredThrough`; `records` is then empty.
        public var lagged: Bool
        /// Every record before this position has been offered (kept or dropped); later ones come in later takes.
        public var offeredThrough: UInt64
        /// The hub closed (shutdown): nothing more will come.
        public var closed: Bool
    }

    struct State {
        var records = Deque<StreamRecord>()
        var events = 0
        var lagged = false
        var closed = false
        var offeredThrough: UInt64
    }

    /// Events (notifications and positions) the buffer holds at most.
    public let capacity: Int
    /// Whether this reader wants the fixes of the records (device positions).
    public let wantsPositions: Bool
    /// The first position that comes live: every record before it is in the journal and durable once
    /// `waitDurable(through: liveFrom)` returns; records from it on are offered here (unless the buffer overflows).
    public let liveFrom: UInt64
    let id: Int
    private let state: Mutex<State>
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    init(id: Int, capacity: Int, wantsPositions: Bool, liveFrom: UInt64) {
        self.id = id
        self.capacity = capacity
        self.wantsPositions = wantsPositions
        self.liveFrom = liveFrom
        state = Mutex(State(offeredThrough: liveFrom))
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Wake-ups: one buffered at most, the reader takes everything each time.
    public var wakeups: AsyncStream<Void> { wake }

    /// Wakes the reader without a record (its heartbeat).
    public func poke() { wakeContinuation.yield() }

    /// Everything buffered since the last take.
    public func take() -> Taken {
        state.withLock { s in
            defer {
                s.records.removeAll()
                s.events = 0
                s.lagged = false
            }
            return Taken(records: Array(s.records), lagged: s.lagged, offeredThrough: s.offeredThrough, closed: s.closed)
        }
    }

    /// Appends the records (those of a published batch this reader wants; every record before `through` has been
    /// published), or, past the capacity, drops what is held and marks the reader lagged. Returns false when it
    /// lagged now.
    func offer(_ records: [StreamRecord], events: Int, through: UInt64) -> Bool {
        let kept = state.withLock { s -> Bool in
            s.offeredThrough = max(s.offeredThrough, through)
            if s.closed || s.lagged || records.isEmpty { return true }
            if s.events + events > capacity {
                s.records.removeAll()
                s.events = 0
                s.lagged = true
                return false
            }
            s.records.append(contentsOf: records)
            s.events += events
            return true
        }
        if !records.isEmpty { wakeContinuation.yield() }
        return kept
    }

    public func close() {
        state.withLock { $0.closed = true }
        wakeContinuation.yield()
        wakeContinuation.finish()
    }
}
