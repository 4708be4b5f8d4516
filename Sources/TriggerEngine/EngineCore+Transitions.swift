extension EngineCore {
    /// The stored pair for (device, slot), if any.
    @inline(__always)
    func pairIndex(device d: Int32, slot: Int32) -> Int? {
        let gen = slotGenerations[Int(slot)]
        return devices[Int(d)].pairs.firstIndex { $0.slot == slot && $0.slotGeneration == gen }
    }

    /// The phase of a pair with no stored state. Geofences: outside once the device has had a fix evaluated since
    /// the request was added (a fix far from the fence says "outside" without the index returning it), unknown
    /// before. Beacon regions: outside once the observer has listened through the initial scan window without a
    /// match (docs/semantics.md "Beacons"). Inlined: called out of line from a mutating method, it was handed a
    /// copy of the whole engine state.
    @inline(__always)
    func impliedPhase(device d: Int32, slot: Int32, at time: Timestamp) -> PairState.Phase {
        let g = slots[Int(slot)]
        if g.kind == .beacon {
            return Self.beaconInitialScanElapsed(observingSince: observers[Int(d)].observingSince, slot: g, at: time)
                ? .outside : .unknown
        }
        return devices[Int(d)].hasFix && devices[Int(d)].lastGeneration >= g.addedGeneration ? .outside : .unknown
    }

    /// How long an observer must listen, from when both it and a beacon request were there, before a beacon it has
    /// not heard counts as absent rather than unknown. A beacon already in range is heard within it (iBeacons
    /// typically advertise every 100 ms; this leaves room for beacons that advertise once a second and a missed
    /// advertisement), so what is heard inside it was there already (the initial state: silent unless
    /// `initialTrigger`), and a first sighting after it is an arrival (an entry). Capped by the request's
    /// `exitTimeout`, after which an unheard beacon is outside anyway.
    static let initialScanWindow = Timestamp.Duration(seconds: 2)

    /// Whether an observer has listened through the initial scan window since both it and the request were there.
    static func beaconInitialScanElapsed(observingSince: Timestamp, slot g: SlotGeometry, at time: Timestamp) -> Bool {
        let since = max(observingSince, g.addedAt)
        return since < Timestamp.distantFuture && time >= since + min(g.exitTimeout, initialScanWindow)
    }

    /// Stores `phase` for the pair, creating the stored state if needed; returns its index.
    @discardableResult
    mutating func setPhase(device d: Int32, slot: Int32, at pi: Int?, phase: PairState.Phase, since: Timestamp) -> Int {
        let k: Int
        if let pi {
            // One write access to the pair list, not two (each a uniqueness check of the list: ~5 % of a dense run).
            devices[Int(d)].pairs.withUnsafeMutableBufferPointer { pairs in
                pairs[pi].phase = phase
                pairs[pi].since = since
            }
            k = pi
        } else {
            devices[Int(d)].pairs.append(PairState(slot: slot, slotGeneration: slotGenerations[Int(slot)], phase: phase, since: since))
            k = devices[Int(d)].pairs.count - 1
        }
        // After the pair holds its phase: noting may compact the list, which keeps only current occupants.
        if phase == .inside || phase == .entering { noteOccupant(device: d, slot: slot) }
        return k
    }

    /// Applies one determinate (or uncertain) observation to a pair: SPEC §3's transition table.
    /// Returns the pair's phase afterwards.
    @discardableResult
    mutating func transition(device d: Int32, slot: Int32, side: Side, time: Timestamp, evidence: Evidence?,
                    emit: (FiredNotification) -> Void) -> PairState.Phase {
        let c = slots[Int(slot)]
        guard c.kind != .empty else { return .unknown }
        let pi = pairIndex(device: d, slot: slot)
        // Not `pi.map { … }`: a closure reading `self` in a mutating method copied the whole engine state (616
        // bytes) onto the stack on every call.
        let phase: PairState.Phase
        if let pi { phase = devices[Int(d)].pairs[pi].phase } else { phase = impliedPhase(device: d, slot: slot, at: time) }
        switch side {
        case .uncertain:
            // Changes nothing, but an implied "unknown" must not turn into an implied "outside" after this fix.
            if pi == nil, phase == .unknown { setPhase(device: d, slot: slot, at: nil, phase: .unknown, since: time) }
            return phase
        case .inside:
            switch phase {
            case .inside, .entering:
                return phase
            case .outside, .unknown:
                let notifies = phase == .outside || c.initialTrigger
                if notifies, c.notifyOnEntry, c.dwell > .zero {
                    let k = setPhase(device: d, slot: slot, at: pi, phase: .entering, since: time)
                    let deadline = time + c.dwell
                    devices[Int(d)].pairs[k].dwellDeadline = deadline
                    devices[Int(d)].pairs[k].evidence = evidence
                    timers.insert(TimerEntry(deadline: deadline, device: d, slot: slot,
                                             slotGeneration: slotGenerations[Int(slot)], kind: .dwell))
                    if explain.isOn { noteEvent(.dwellStarted, device: d, slot: slot, at: time, until: deadline) }
                    return .entering
                }
                let k = setPhase(device: d, slot: slot, at: pi, phase: .inside, since: time)
                if phase == .outside { statistics.entries += 1 }
                if explain.isOn { noteEvent(notifies ? .entered : .initiallyInside, device: d, slot: slot, at: time) }
                if notifies, c.notifyOnEntry {
                    fire(device: d, slot: slot, pair: k, event: .entry, at: time, evidence: evidence, emit: emit)
                }
                return .inside
            }
        case .outside:
            switch phase {
            case .outside:
                return .outside
            case .unknown:
                if let pi { setPhase(device: d, slot: slot, at: pi, phase: .outside, since: time) }
                return .outside
            case .entering:
                // Left before the dwell time: the entry is cancelled silently, and there is no exit to report.
                setPhase(device: d, slot: slot, at: pi, phase: .outside, since: time)
                statistics.dwellsCancelled += 1
                if explain.isOn { noteEvent(.dwellCancelled, device: d, slot: slot, at: time) }
                return .outside
            case .inside:
                let k = setPhase(device: d, slot: slot, at: pi, phase: .outside, since: time)
                statistics.exits += 1
                if explain.isOn { noteEvent(.exited, device: d, slot: slot, at: time) }
                if c.notifyOnExit {
                    fire(device: d, slot: slot, pair: k, event: .exit, at: time, evidence: evidence, emit: emit)
                }
                return .outside
            }
        }
    }

    /// Emits one notification unless `minimumInterval` suppresses it; a `repeats: false` request then leaves the
    /// pending set.
    mutating func fire(device d: Int32, slot: Int32, pair k: Int, event: FiredNotification.Event, at time: Timestamp,
              evidence: Evidence?, emit: (FiredNotification) -> Void) {
        guard let plan = plan(slot: slot) else { return }
        let g = slots[Int(slot)]
        let last = devices[Int(d)].pairs[k].lastFired
        if g.minimumInterval > .zero, last > Timestamp.distantPast, time < last + g.minimumInterval {
            statistics.suppressedByMinimumInterval += 1
            if explain.isOn { noteEvent(.suppressed, device: d, slot: slot, at: time, until: last + g.minimumInterval) }
            return
        }
        firingCounts[Int(slot)] &+= 1
        devices[Int(d)].pairs[k].lastFired = time
        if observers[Int(d)].lastFiring == time {
            observers[Int(d)].firingOrdinal &+= 1
        } else {
            observers[Int(d)].lastFiring = time
            observers[Int(d)].firingOrdinal = 1
        }
        let device = devices[Int(d)].name
        emit(Self.render(plan, device: device, event: event, at: time, ordinal: observers[Int(d)].firingOrdinal, evidence: evidence))
        statistics.notifications += 1
        if explain.isOn {
            noteEvent(.fired, device: d, slot: slot, at: time)
            if !g.repeats { noteEvent(.delivered, device: d, slot: slot, at: time) }
        }
        if !g.repeats { markDelivered(slot: slot, device: device, at: time) }
    }

    /// Drops stored pairs that say no more than their implied state: outside with no interval to remember, or
    /// belonging to a removed request. `time` is the device's own time (never the global clock: what a pair still
    /// has to remember must not depend on other devices).
    mutating func compactPairs(device d: Int32, at time: Timestamp) {
        // Read before the in-place removal: the closure must not touch `devices` while its pairs are being modified.
        guard !devices[Int(d)].pairs.isEmpty else { return }
        // The observer's record is read only for a beacon pair: for a fix it is one more cache miss (serve's
        // profile: 93 % of this function's samples were that load).
        // Takes the pair's address: passed by value, each pair was copied whole (136 bytes, its evidence
        // included) before a field was read; that copy was 4.6 % of serve's samples, the first touch of the list.
        func removable(_ p: UnsafePointer<PairState>, observingSince: @autoclosure () -> Timestamp) -> Bool {
            let slot = Int(p.pointee.slot)
            guard slotGenerations[slot] == p.pointee.slotGeneration, slots[slot].kind != .empty else { return true }
            guard p.pointee.phase == .outside else { return false }
            let c = slots[slot]
            let lastFired = p.pointee.lastFired
            if c.minimumInterval > .zero, lastFired > Timestamp.distantPast, time < lastFired + c.minimumInterval {
                return false
            }
            if c.kind == .beacon {
                return Self.beaconInitialScanElapsed(observingSince: observingSince(), slot: c, at: time)
            }
            return true
        }
        // Looked for before any write: after most fixes nothing goes, and a removal's write access checks the
        // list's uniqueness and rebuilds its tail even when it removes nothing.
        let found = devices[Int(d)].pairs.withUnsafeBufferPointer { pairs -> Bool in
            guard let base = pairs.baseAddress else { return false }
            for k in 0..<pairs.count where removable(base + k, observingSince: observers[Int(d)].observingSince) { return true }
            return false
        }
        guard found else { return }
        let observingSince = observers[Int(d)].observingSince
        devices[Int(d)].pairs.removeAll { p in withUnsafePointer(to: p) { removable($0, observingSince: observingSince) } }
    }
}
