import Synchronization

/// Fans durable journal records out to the event streams' readers (`GET /v1/stream`). The outbox feeder publishes
/// each durable batch once, in journal order; each reader has a bounded buffer of its own (`StreamSubscription`),
/// so publishing never waits for a reader.
///
/// With no reader, the record writer's only cost is `admit` once per written batch (not per fix): the feeder then
/// queues only what the sinks need, as before.
public final class StreamHub: Sendable {
    /// What the writer's next records must carry for the readers open when it wrote them.
    public struct Interest: Sendable, Equatable {
        public var notifications: Bool
        public var positions: Bool

        public init(notifications: Bool, positions: Bool) {
            self.notifications = notifications
            self.positions = positions
        }

        static let nothing = Interest(notifications: false, positions: false)
    }

    struct State {
        var readers: [Int: StreamSubscription] = [:]
        var positionReaders = 0
        var nextID = 0
        /// Every record before this position was written with the interest of the readers open then.
        var admitted: UInt64
        var closed = false
    }

    private let state: Mutex<State>
    let metrics = StreamMetrics()

    /// - Parameter start: the journal's next position when the host opened (nothing after it is written yet).
    public init(start: UInt64) {
        state = Mutex(State(admitted: start))
    }

    /// Called by the record writer once per written batch, before its records are queued for the feeder: which
    /// parts of records up to `end` the readers want. A reader that subscribes after this call gets records from
    /// `end` on live; the ones before from the journal.
    func admit(through end: UInt64) -> Interest {
        state.withLock { s in
            s.admitted = max(s.admitted, end)
            return s.readers.isEmpty ? .nothing : Interest(notifications: true, positions: s.positionReaders > 0)
        }
    }

    /// Registers a reader. Records before its `liveFrom` must be read from the journal (after waiting for them to
    /// be durable); the later ones are offered to it. Nil after shutdown began.
    public func subscribe(capacity: Int, positions: Bool) -> StreamSubscription? {
        let subscription = state.withLock { s -> StreamSubscription? in
            guard !s.closed else { return nil }
            s.nextID += 1
            let subscription = StreamSubscription(id: s.nextID, capacity: capacity, wantsPositions: positions, liveFrom: s.admitted)
            s.readers[subscription.id] = subscription
            if positions { s.positionReaders += 1 }
            return subscription
        }
        if subscription != nil { metrics.readers.record(readerCount) }
        return subscription
    }

    public func unsubscribe(_ subscription: StreamSubscription) {
        state.withLock { s in
            if s.readers.removeValue(forKey: subscription.id) != nil, subscription.wantsPositions { s.positionReaders -= 1 }
        }
        metrics.readers.record(readerCount)
    }

    public var readerCount: Int { state.withLock { $0.readers.count } }

    /// Whether some stream is open: with none, the feeder builds nothing to publish.
    var hasReaders: Bool { state.withLock { !$0.readers.isEmpty } }

    /// Offers durable records (in journal order, positions rising across calls) to every reader, each the records
    /// it wants; `through`: every record before it is published.
    func publish(_ records: [StreamRecord], through: UInt64) {
        let readers = state.withLock { Array($0.readers.values) }
        guard !readers.isEmpty else { return }
        var withPositions: (records: [StreamRecord], events: Int)?
        var notificationsOnly: (records: [StreamRecord], events: Int)?
        for reader in readers {
            let offered: (records: [StreamRecord], events: Int)
            if reader.wantsPositions {
                if withPositions == nil { withPositions = Self.select(records, positions: true) }
                offered = withPositions!
            } else {
                if notificationsOnly == nil { notificationsOnly = Self.select(records, positions: false) }
                offered = notificationsOnly!
            }
            if !reader.offer(offered.records, events: offered.events, through: through) { metrics.lagged.increment() }
        }
        metrics.offered.increment(by: records.count)
    }

    /// The records with something for a reader, and how many events they make.
    static func select(_ records: [StreamRecord], positions: Bool) -> (records: [StreamRecord], events: Int) {
        var out: [StreamRecord] = [], events = 0
        for r in records {
            if positions {
                guard !r.notifications.isEmpty || !r.fixes.isEmpty else { continue }
                out.append(r)
                events += r.notifications.count + r.fixes.count
            } else {
                guard !r.notifications.isEmpty else { continue }
                out.append(r.fixes.isEmpty ? r : StreamRecord(position: r.position, notifications: r.notifications))
                events += r.notifications.count
            }
        }
        return (out, events)
    }

    /// Shutdown: every reader is told and no new one is taken.
    public func close() {
        let readers = state.withLock { s in
            s.closed = true
            return Array(s.readers.values)
        }
        for r in readers { r.close() }
    }

    /// Counts events written to readers (the route's).
    public func delivered(_ events: Int) { metrics.delivered.increment(by: events) }

    /// Counts records read again from the journal for a reader.
    public func replayed(_ records: Int) { metrics.replayed.increment(by: records) }
}
