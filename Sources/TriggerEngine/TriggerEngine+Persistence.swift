/// Persistence: what a service stores so that a restart restores everything (SPEC §5).
///
/// The engine stays storage-agnostic: it hands out plain values (counters, per-request numbers, per-device
/// snapshots whose engine-private parts are opaque text) and takes them back in this order:
/// `restore(counters:)`, `restore(_:state:)` for every pending request in revision (that is, add) order,
/// `restoreDelivered(_:)`, then
/// `restore(_:)` for every device snapshot, and finally `restore(counters:)` once more so the counters are exactly the
/// persisted ones. Counters never run back, so a `deliveryId` (`identifier/device/revision-firings`) is never
/// reused after a restart as long as each batch's counters and request firings are stored with its notifications.
extension TriggerEngine {
    /// The engine-wide counters behind generations, revisions and the clock.
    public struct Counters: Sendable, Hashable {
        public var generation: UInt64
        public var revisionCounter: UInt64
        public var now: Timestamp

        public init(generation: UInt64, revisionCounter: UInt64, now: Timestamp) {
            self.generation = generation
            self.revisionCounter = revisionCounter
            self.now = now
        }
    }

    /// The per-request numbers that must survive a restart: the revision and firing count make up `deliveryId`;
    /// the add generation and time decide a pair's implied state.
    public struct RequestState: Sendable, Hashable {
        public var revision: UInt64
        public var firings: UInt64
        public var addedGeneration: UInt64
        public var addedAt: Timestamp

        public init(revision: UInt64, firings: UInt64, addedGeneration: UInt64, addedAt: Timestamp) {
            self.revision = revision
            self.firings = firings
            self.addedGeneration = addedGeneration
            self.addedAt = addedAt
        }
    }

    public var counters: Counters {
        Counters(generation: core.generation, revisionCounter: core.revisionCounter, now: core.now)
    }

    /// Sets the counters; they only move forward, so calling this after requests were restored is safe.
    public func restore(counters: Counters) {
        core.generation = max(core.generation, counters.generation)
        core.revisionCounter = max(core.revisionCounter, counters.revisionCounter)
        if counters.now > core.now { core.now = counters.now }
    }

    /// The persistent numbers of a pending request.
    public func state(ofRequest identifier: String) -> RequestState? {
        guard let slot = core.slotByIdentifier[identifier], let c = core.compiled[Int(slot)] else { return nil }
        let g = core.slots[Int(slot)]
        return RequestState(revision: c.revision, firings: core.firingCounts[Int(slot)], addedGeneration: g.addedGeneration, addedAt: g.addedAt)
    }

    /// Re-adds a pending request with the numbers it had, so its next firing continues its `deliveryId` sequence.
    public func restore(_ request: NotificationRequest, state: RequestState) throws(RequestError) {
        // A restore is not an add: the counters must end where they were, so a restart changes no later deliveryId.
        let generation = core.generation, revisionCounter = core.revisionCounter
        try core.add(request)
        guard let slot = core.slotByIdentifier[request.identifier], let old = core.compiled[Int(slot)] else { return }
        let c = CompiledRequest(request: request, templates: old.templates, revision: state.revision)
        core.compiled[Int(slot)] = c
        core.firingCounts[Int(slot)] = state.firings
        core.plans[Int(slot)] = nil
        core.slots[Int(slot)].addedGeneration = state.addedGeneration
        core.slots[Int(slot)].addedAt = state.addedAt
        core.revisionCounter = max(revisionCounter, state.revision)
        core.generation = max(generation, state.addedGeneration)
    }

    /// Puts a delivered (`repeats: false`, fired) request back into the delivered list.
    public func restoreDelivered(_ record: DeliveredRequest) {
        guard core.deliveredIndex[record.request.identifier] == nil else { return }
        core.deliveredIndex[record.request.identifier] = core.delivered.count
        core.delivered.append(record)
    }

    /// A pending dwell or beacon-exit deadline: when the clock passes it, the device's state changes without input
    /// of its own.
    public struct PendingDeadline: Sendable, Hashable {
        public var device: String
        public var deadline: Timestamp
    }

    /// The pending deadlines (some may be stale: skipped when due). A batch's changed devices are the ones it
    /// names, the ones it fired for, and those whose deadline, taken before the batch, the clock has passed since.
    public var pendingDeadlines: [PendingDeadline] {
        core.timers.unordered.compactMap { t in
            guard Int(t.device) < core.devices.count else { return nil }
            let name = core.devices[Int(t.device)].name
            return name.isEmpty ? nil : PendingDeadline(device: name, deadline: t.deadline)
        }
    }

    /// Everything the engine knows about one device, or nil if it has none (never seen, or expired). Pairs are in
    /// the engine's order, which decides the order of notifications one fix fires: store and restore them in it.
    public func snapshot(ofDevice name: String) -> DeviceSnapshot? {
        guard let d = core.existingDevice(name) else { return nil }
        let dev = core.devices[Int(d)]
        let observer = core.observers[Int(d)]
        var pairs: [DeviceSnapshot.Pair] = []
        for p in dev.pairs {
            guard core.slotGenerations[Int(p.slot)] == p.slotGeneration, let c = core.compiled[Int(p.slot)] else { continue }
            pairs.append(.init(identifier: c.request.identifier, revision: c.revision, state: PersistedPair(p).text))
        }
        return DeviceSnapshot(device: name, lastFix: dev.hasFix ? dev.lastFixTime : nil,
                              lastSighting: observer.lastSightingTime > .distantPast ? observer.lastSightingTime : nil,
                              state: PersistedDevice(dev, observer).text, pairs: pairs)
    }

    /// Restores a device after its requests were restored. Pairs of requests that are gone or were replaced since
    /// (another revision) are dropped: a replaced request's state starts afresh anyway. Pending deadlines are
    /// scheduled again.
    public func restore(_ snapshot: DeviceSnapshot) throws(PersistenceError) {
        guard let device = PersistedDevice(text: snapshot.state) else {
            throw PersistenceError(device: snapshot.device, reason: "unreadable device state")
        }
        let d = core.deviceIndex(snapshot.device, at: max(device.lastFixTime, device.lastSightingTime))
        device.apply(to: &core.devices[Int(d)], &core.observers[Int(d)])
        core.noteActivity(device: d, at: core.lastActivity(device: Int(d)))
        core.devices[Int(d)].pairs.removeAll()
        for pair in snapshot.pairs {
            guard let slot = core.slotByIdentifier[pair.identifier], let c = core.compiled[Int(slot)],
                c.revision == pair.revision
            else { continue }
            guard let persisted = PersistedPair(text: pair.state) else {
                throw PersistenceError(device: snapshot.device, reason: "unreadable state for request \(pair.identifier)")
            }
            let p = persisted.pairState(slot: slot, slotGeneration: core.slotGenerations[Int(slot)])
            core.devices[Int(d)].pairs.append(p)
            core.scheduleDeadlines(of: p, device: d)
            if p.phase == .inside || p.phase == .entering { core.noteOccupant(device: d, slot: p.slot) }
        }
    }
}

extension EngineCore {
    /// Schedules a restored pair's pending dwell and beacon-exit deadlines on the clock's heap.
    mutating func scheduleDeadlines(of p: PairState, device d: Int32) {
        if p.phase == .entering {
            timers.insert(TimerEntry(deadline: p.dwellDeadline, device: d, slot: p.slot, slotGeneration: p.slotGeneration, kind: .dwell))
        }
        let g = slots[Int(p.slot)]
        if g.kind == .beacon, p.phase == .inside || p.phase == .entering {
            timers.insert(TimerEntry(deadline: p.lastMatch + g.exitTimeout, device: d, slot: p.slot, slotGeneration: p.slotGeneration,
                                     kind: .beaconExit))
        }
    }
}

/// One device's persisted state. `state` and each pair's `state` are engine-private text: store them as they are.
public struct DeviceSnapshot: Sendable, Hashable {
    public struct Pair: Sendable, Hashable {
        public var identifier: String
        /// The request revision the state belongs to; a restore ignores pairs of another revision.
        public var revision: UInt64
        public var state: String

        public init(identifier: String, revision: UInt64, state: String) {
            self.identifier = identifier
            self.revision = revision
            self.state = state
        }
    }

    public var device: String
    public var lastFix: Timestamp?
    public var lastSighting: Timestamp?
    public var state: String
    public var pairs: [Pair]

    public init(device: String, lastFix: Timestamp?, lastSighting: Timestamp?, state: String, pairs: [Pair]) {
        self.device = device
        self.lastFix = lastFix
        self.lastSighting = lastSighting
        self.state = state
        self.pairs = pairs
    }
}

/// A snapshot the engine could not read back (written by an incompatible version, or damaged).
public struct PersistenceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var device: String
    public var reason: String
    public var description: String { device.isEmpty ? reason : "device \(device): \(reason)" }
    public init(device: String, reason: String) {
        self.device = device
        self.reason = reason
    }
}

extension DeliveredRequest {
    /// A delivered record read back from storage (the memberwise initializer is internal).
    public init(restoring request: NotificationRequest, deliveredAt: Timestamp, device: String) {
        self.request = request
        self.deliveredAt = deliveredAt
        self.device = device
    }
}
