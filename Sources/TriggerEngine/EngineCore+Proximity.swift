import Geometry

/// Proximity rules (docs/semantics.md "Proximity"): a fix of a device that takes part waits until the watermark
/// has passed it, then all such fixes are applied in event-time order, each deciding the pairs its device is part of.
extension EngineCore {
    /// Compiles the proximity requests again (requests or groups changed) and files every known position anew.
    mutating func rebuildProximityRules() {
        // Taken out and put back: a copy would make every change below copy the whole state.
        var p = ProximityState()
        swap(&p, &proximity)
        p.needsRebuild = false
        p.rules.removeAll()
        p.everyoneRules = 0
        p.named.removeAll()
        for slot in slots.indices where slots[slot].kind == .proximity {
            guard let c = compiled[slot], case let .proximity(region) = c.request.trigger.region.shape else { continue }
            let subjects: Set<String>? = region.subjects.map { $0.resolve(p.groups) } ?? c.request.trigger.devices
            let targets = region.targets.resolve(p.groups)
            if let subjects { p.named.formUnion(subjects) } else { p.everyoneRules += 1 }
            p.named.formUnion(targets)
            // Cells about as wide as the distance a query reaches, so a query reads a few cells.
            let cell = 2 * (region.radius + slots[slot].hysteresis)
            p.rules.append(.init(slot: Int32(slot), slotGeneration: slotGenerations[slot], radius: region.radius,
                                 maxAge: .init(seconds: region.maxAge), addedAt: slots[slot].addedAt, subjects: subjects,
                                 targets: targets, subjectGrid: MovingPointGrid(cellMetres: cell),
                                 targetGrid: MovingPointGrid(cellMetres: cell)))
        }
        for k in p.participants.indices {
            let name = p.participants[k].name
            p.participants[k].roles = p.roles(of: name)
            guard p.participants[k].hasPosition else { continue }
            for role in p.participants[k].roles {
                let q = p.participants[k]
                if role.subject { p.rules[Int(role.rule)].subjectGrid.place(Int32(k), latitude: q.latitude, longitude: q.longitude, accuracy: q.accuracy ?? 0) }
                if role.target { p.rules[Int(role.rule)].targetGrid.place(Int32(k), latitude: q.latitude, longitude: q.longitude, accuracy: q.accuracy ?? 0) }
            }
        }
        // Pairs of removed or replaced requests go.
        let stale = p.pairs.filter { slotGenerations[Int($0.key.slot)] != $0.value.slotGeneration || slots[Int($0.key.slot)].kind != .proximity }
        for key in stale.keys { Self.dropPair(key, from: &p) }
        swap(&p, &proximity)
    }

    static func dropPair(_ key: ProximityState.PairKey, from p: inout ProximityState) {
        guard p.pairs.removeValue(forKey: key) != nil else { return }
        p.participants[Int(key.subject)].pairs.removeAll { $0.key == key }
        p.participants[Int(key.target)].pairs.removeAll { $0.key == key }
    }

    /// The time up to which proximity inputs are decided during a run: the clock (event time: the watermark) less
    /// the allowed lateness; nil when there is none (replay: only the end of input decides).
    var proximityLimit: Timestamp? {
        guard let lateness = allowedLateness else { return nil }
        let clock = firingClock
        guard clock > .distantPast else { return nil }
        return Timestamp(microseconds: clock.microseconds &- lateness.microseconds)
    }

    /// Queues an accepted fix of a device some rule involves; decides what the watermark now allows.
    mutating func enqueueProximity(device name: String, record device: Int32, hash: UInt32, time: Timestamp, latitude: Double, longitude: Double,
                                   accuracy: Double?, emit: (FiredNotification) -> Void) {
        if proximity.needsRebuild { rebuildProximityRules() }
        guard proximity.involves(name) else { return }
        if time <= proximity.released {
            // Its moment has been decided already: pairs cannot be decided again without changing what was notified.
            statistics.proximityLate += 1
            return
        }
        let p: Int32
        if Int(device) < proximity.participantByDevice.count, case let guess = proximity.participantByDevice[Int(device)], guess >= 0,
           proximity.participants[Int(guess)].name == name {
            p = guess
        } else {
            p = proximity.participant(name, hash: hash)
            if Int(device) >= proximity.participantByDevice.count {
                proximity.participantByDevice.append(contentsOf: repeatElement(-1, count: max(Int(device) + 1, proximity.participantByDevice.count * 2) - proximity.participantByDevice.count))
            }
            proximity.participantByDevice[Int(device)] = p
        }
        proximity.participants[Int(p)].sequence &+= 1
        proximity.pending.insert(.init(time: time, nameHash: hash, participant: p,
                                       sequence: proximity.participants[Int(p)].sequence,
                                       latitude: latitude, longitude: longitude, accuracy: accuracy))
        statistics.proximityInputs += 1
        releaseProximity(emit: emit)
    }

    /// Decides the queued fixes the watermark has passed.
    @inline(__always)
    mutating func releaseProximity(emit: (FiredNotification) -> Void) {
        guard proximity.isActive, let limit = proximityLimit, limit > proximity.released else { return }
        // Nothing due: only the mark moves (what arrives behind it from now on is late).
        if proximity.pending.min.map({ $0.time > limit }) ?? true, proximity.deadlines.min.map({ $0.time > limit }) ?? true {
            proximity.released = limit
            return
        }
        releaseProximity(through: limit, emit: emit)
    }

    /// Applies every queued fix and due dwell deadline up to `limit`, in event-time order.
    mutating func releaseProximity(through limit: Timestamp, emit: (FiredNotification) -> Void) {
        if proximity.needsRebuild { rebuildProximityRules() }
        var ready = proximity.ready
        ready.removeAll(keepingCapacity: true)
        while let top = proximity.pending.min, top.time <= limit { ready.append(proximity.pending.removeMin()) }
        // Through the array's buffer: a copy of the whole state for the comparison would be copied again, all of
        // it, at the next change to the state.
        proximity.participants.withUnsafeBufferPointer { parts in ready.sort { ProximityState.precedes($0, $1, parts) } }
        for j in ready.indices {
            if j + 4 < ready.count { prefetchProximity(ready[j + 4], cells: true) }
            if j + 2 < ready.count { prefetchProximity(ready[j + 2], cells: false) }
            completeProximityDwells(through: ready[j].time, emit: emit)
            applyProximity(ready[j], emit: emit)
        }
        completeProximityDwells(through: limit, emit: emit)
        proximity.released = limit
        ready.removeAll(keepingCapacity: true)
        proximity.ready = ready
    }

    /// Starts loading the grid cells a queued fix's queries will read (see `MovingPointGrid.prefetch`).
    @inline(__always)
    func prefetchProximity(_ e: ProximityState.PendingFix, cells: Bool) {
        proximity.participants.withUnsafeBufferPointer { parts in
            for role in parts[Int(e.participant)].roles {
                let rule = Int(role.rule)
                let metres = proximity.rules[rule].radius + (e.accuracy ?? 0)
                if role.subject {
                    proximity.rules[rule].targetGrid.prefetch(latitude: e.latitude, longitude: e.longitude, metres: metres, cells: cells)
                }
                if role.target {
                    proximity.rules[rule].subjectGrid.prefetch(latitude: e.latitude, longitude: e.longitude, metres: metres, cells: cells)
                }
            }
        }
    }

    /// One fix, its moment come: the device's position moves, then every pair it is part of is decided.
    mutating func applyProximity(_ e: ProximityState.PendingFix, emit: (FiredNotification) -> Void) {
        let p = e.participant
        let before = proximity.participants[Int(p)].time
        let accuracy = e.accuracy ?? 0
        proximity.participants[Int(p)].time = e.time
        proximity.participants[Int(p)].latitude = e.latitude
        proximity.participants[Int(p)].longitude = e.longitude
        proximity.participants[Int(p)].accuracy = e.accuracy
        let ecef = Geodesy.ECEF(Coordinate(latitude: e.latitude, longitude: e.longitude))
        proximity.hot[Int(p)].ecef = ecef
        proximity.hot[Int(p)].time = e.time
        proximity.hot[Int(p)].accuracy = accuracy
        let roles = proximity.participants[Int(p)].roles
        for role in roles {
            if role.subject { proximity.rules[Int(role.rule)].subjectGrid.place(p, latitude: e.latitude, longitude: e.longitude, accuracy: accuracy) }
            if role.target { proximity.rules[Int(role.rule)].targetGrid.place(p, latitude: e.latitude, longitude: e.longitude, accuracy: accuracy) }
        }
        for role in roles {
            if role.subject { decideProximity(rule: role.rule, participant: p, asSubject: true, previous: before, at: e.time, emit: emit) }
            if role.target { decideProximity(rule: role.rule, participant: p, asSubject: false, previous: before, at: e.time, emit: emit) }
        }
    }

    /// Decides the pairs of `participant` on one side of one rule: the other side's devices the grid finds within
    /// reach, and the stored pairs (which the grid may not return: those are now clearly apart).
    mutating func decideProximity(rule r: Int32, participant p: Int32, asSubject: Bool, previous: Timestamp, at time: Timestamp,
                                  emit: (FiredNotification) -> Void) {
        // Fields, not whole records: a copy of a record (its arrays and name retained) held across the changes
        // below made each change copy what it changed.
        let slot = proximity.rules[Int(r)].slot, slotGeneration = proximity.rules[Int(r)].slotGeneration
        let radius = proximity.rules[Int(r)].radius, maxAge = proximity.rules[Int(r)].maxAge.microseconds
        let addedAt = proximity.rules[Int(r)].addedAt
        guard slotGenerations[Int(slot)] == slotGeneration, slots[Int(slot)].kind == .proximity else { return }
        let g = slots[Int(slot)]
        let myAccuracy = proximity.participants[Int(p)].accuracy ?? 0
        let myLatitude = proximity.participants[Int(p)].latitude, myLongitude = proximity.participants[Int(p)].longitude
        let myECEF = proximity.hot[Int(p)].ecef
        // A position less accurate than the request allows decides none of its pairs (SPEC maximumAccuracy).
        if myAccuracy > g.maximumAccuracy { return }
        proximity.visit &+= 1
        if proximity.visit == 0 {
            for k in proximity.hot.indices { proximity.hot[k].visited = 0; proximity.hot[k].stored = 0 }
            proximity.visit = 1
        }
        let mark = proximity.visit
        var candidates = proximity.candidates
        candidates.removeAll(keepingCapacity: true)
        let grid = asSubject ? proximity.rules[Int(r)].targetGrid : proximity.rules[Int(r)].subjectGrid
        let reach = radius + g.hysteresis + myAccuracy + min(grid.maximumAccuracy, g.maximumAccuracy)
        let myPairs = proximity.participants[Int(p)].pairs
        proximity.hot.withUnsafeMutableBufferPointer { parts in
            // The stored pairs first: they are decided whatever the distance (the grid may not return them).
            for entry in myPairs where entry.key.slot == slot {
                let key = entry.key
                let other: Int32
                if asSubject { guard key.subject == p else { continue }; other = key.target } else { guard key.target == p else { continue }; other = key.subject }
                guard other != p, parts[Int(other)].visited != mark else { continue }
                parts[Int(other)].visited = mark
                parts[Int(other)].stored = mark
                parts[Int(other)].storedPhase = entry.phase
                candidates.append(other)
            }
            grid.query(latitude: myLatitude, longitude: myLongitude, metres: reach) { q in
                guard q != p, parts[Int(q)].visited != mark else { return }
                parts[Int(q)].visited = mark
                candidates.append(q)
            }
        }
        // What each candidate's distance says, changing nothing yet: only those with something to do are kept.
        let radiusChord = Geodesy.chord(arc: radius)
        let radiusChordSquared = radiusChord * radiusChord
        let known = previous > .distantPast && previous >= addedAt
        var decisions = proximity.decisions
        decisions.removeAll(keepingCapacity: true)
        proximity.hot.withUnsafeBufferPointer { parts in
            for q in candidates {
                let otherTime = parts[Int(q)].time
                // A stale position is no evidence: the pair keeps its state until both devices are heard from again.
                guard otherTime > .distantPast, time.microseconds &- otherTime.microseconds <= maxAge else { continue }
                let otherAccuracy = parts[Int(q)].accuracy
                if otherAccuracy > g.maximumAccuracy { continue }
                let c2 = myECEF.chordSquared(to: parts[Int(q)].ecef)
                let margin = myAccuracy + otherAccuracy + g.hysteresis
                let side: Side
                if margin == 0 {
                    side = c2 <= radiusChordSquared ? .inside : .outside
                } else {
                    let distance = Geodesy.arc(chord: c2.squareRoot())
                    side = radius - distance >= margin ? .inside : distance - radius >= margin ? .outside : .uncertain
                }
                if parts[Int(q)].stored == mark {
                    // A stored pair whose phase the distance confirms: nothing to do.
                    switch (side, parts[Int(q)].storedPhase) {
                    case (.inside, .inside), (.inside, .entering), (.outside, .outside): continue
                    case (.uncertain, let phase) where phase != .unknown: continue
                    default: break
                    }
                } else {
                    // No stored pair: outside changes nothing, and uncertain only an unknown pair.
                    if side == .outside { continue }
                    if side == .uncertain, known, otherTime >= addedAt { continue }
                }
                decisions.append(.init(other: q, side: side))
            }
        }
        proximity.participants.withUnsafeBufferPointer { parts in
            // In device order, never in grid or arrival order: the order of firings decides deliveryId ordinals and
            // which pair a `repeats: false` request goes to.
            if decisions.count > 1 { decisions.sort { ProximityState.ordered($0.other, $1.other, parts) } }
        }
        for d in decisions {
            let q = d.other
            let key = asSubject ? ProximityState.PairKey(slot: slot, subject: p, target: q) : .init(slot: slot, subject: q, target: p)
            transitionPair(key, rule: r, side: d.side, known: known && proximity.participants[Int(q)].time >= addedAt, at: time, emit: emit)
            // A `repeats: false` request that fired is gone: none of its other pairs is decided.
            if slotGenerations[Int(slot)] != slotGeneration { break }
        }
        candidates.removeAll(keepingCapacity: true)
        proximity.candidates = candidates
        decisions.removeAll(keepingCapacity: true)
        proximity.decisions = decisions
    }

    /// SPEC §3's transition table for one pair. `known`: an absent pair is outside (both devices have been seen
    /// under the request before); otherwise its state is unknown (the initial state: silent unless `initialTrigger`).
    mutating func transitionPair(_ key: ProximityState.PairKey, rule r: Int32, side: Side, known: Bool, at time: Timestamp,
                                 emit: (FiredNotification) -> Void) {
        let g = slots[Int(key.slot)]
        let generation = slotGenerations[Int(key.slot)]
        let stored = proximity.pairs[key].flatMap { $0.slotGeneration == generation ? $0 : nil }
        let phase = stored?.phase ?? (known ? .outside : .unknown)
        func store(_ phase: PairState.Phase, deadline: Timestamp = .distantFuture) {
            if var pair = proximity.pairs[key], pair.slotGeneration == generation {
                pair.phase = phase
                pair.since = time
                pair.dwellDeadline = deadline
                proximity.pairs[key] = pair
                proximity.setListedPhase(key, phase)
            } else {
                proximity.pairs[key] = .init(slotGeneration: generation, phase: phase, since: time, dwellDeadline: deadline)
                proximity.participants[Int(key.subject)].pairs.append(.init(key: key, phase: phase))
                proximity.participants[Int(key.target)].pairs.append(.init(key: key, phase: phase))
            }
        }
        switch side {
        case .uncertain:
            if stored == nil, phase == .unknown { store(.unknown) }
        case .inside:
            guard phase == .outside || phase == .unknown else { return }
            let notifies = phase == .outside || g.initialTrigger
            if notifies, g.notifyOnEntry, g.dwell > .zero {
                let deadline = time + g.dwell
                store(.entering, deadline: deadline)
                proximity.deadlines.insert(.init(time: deadline, key: key,
                                                 subjectHash: proximity.participants[Int(key.subject)].nameHash,
                                                 targetHash: proximity.participants[Int(key.target)].nameHash))
                return
            }
            store(.inside)
            if phase == .outside { statistics.entries += 1 }
            if notifies, g.notifyOnEntry { firePair(key, event: .entry, at: time, emit: emit) }
        case .outside:
            switch phase {
            case .outside:
                return
            case .unknown:
                break
            case .entering:
                statistics.dwellsCancelled += 1
            case .inside:
                statistics.exits += 1
                store(.outside)
                if g.notifyOnExit { firePair(key, event: .exit, at: time, emit: emit) }
            }
            compactPair(key, at: time)
        }
    }

    /// An outside pair is implied unless it must remember a firing for `minimumInterval`.
    mutating func compactPair(_ key: ProximityState.PairKey, at time: Timestamp) {
        guard let pair = proximity.pairs[key] else { return }
        let g = slots[Int(key.slot)]
        if pair.slotGeneration == slotGenerations[Int(key.slot)], g.minimumInterval > .zero,
           pair.lastFired > .distantPast, time < pair.lastFired + g.minimumInterval {
            proximity.pairs[key]?.phase = .outside
            proximity.setListedPhase(key, .outside)
            return
        }
        Self.dropPair(key, from: &proximity)
    }

    /// Dwell deadlines up to `limit`, in order: a pair still entering at its deadline is inside and notifies then.
    mutating func completeProximityDwells(through limit: Timestamp, emit: (FiredNotification) -> Void) {
        while let top = proximity.deadlines.min, top.time <= limit {
            _ = proximity.deadlines.removeMin()
            guard let pair = proximity.pairs[top.key], pair.slotGeneration == slotGenerations[Int(top.key.slot)],
                  pair.phase == .entering, pair.dwellDeadline == top.time else { continue }
            proximity.pairs[top.key]?.phase = .inside
            proximity.setListedPhase(top.key, .inside)
            proximity.pairs[top.key]?.since = top.time
            proximity.pairs[top.key]?.dwellDeadline = .distantFuture
            statistics.entries += 1
            firePair(top.key, event: .entry, at: top.time, emit: emit)
        }
    }

    /// Emits a pair's notification unless `minimumInterval` holds it back; a `repeats: false` request then leaves.
    mutating func firePair(_ key: ProximityState.PairKey, event: FiredNotification.Event, at time: Timestamp,
                           emit: (FiredNotification) -> Void) {
        guard let plan = plan(slot: key.slot) else { return }
        let g = slots[Int(key.slot)]
        let last = proximity.pairs[key]?.lastFired ?? .distantPast
        if g.minimumInterval > .zero, last > .distantPast, time < last + g.minimumInterval {
            statistics.suppressedByMinimumInterval += 1
            return
        }
        firingCounts[Int(key.slot)] &+= 1
        proximity.pairs[key]?.lastFired = time
        let s = proximity.participants[Int(key.subject)], t = proximity.participants[Int(key.target)]
        // The subject's ordinal at this time keeps deliveryIds unique when several targets come near at once.
        if s.lastFiring == time {
            proximity.participants[Int(key.subject)].firingOrdinal &+= 1
        } else {
            proximity.participants[Int(key.subject)].lastFiring = time
            proximity.participants[Int(key.subject)].firingOrdinal = 1
        }
        let ordinal = proximity.participants[Int(key.subject)].firingOrdinal
        let fix = FixSnapshot(timestamp: s.time, latitude: s.latitude, longitude: s.longitude, horizontalAccuracy: s.accuracy)
        let nearby = NearbySnapshot(device: t.name, timestamp: t.time, latitude: t.latitude, longitude: t.longitude,
                                    horizontalAccuracy: t.accuracy,
                                    distance: proximity.distance(key.subject, key.target))
        emit(FiredNotification(.init(plan: plan, device: s.name, event: event, firedAt: time, ordinal: ordinal,
                                     fix: fix, beacon: nil, nearby: nearby)))
        statistics.notifications += 1
        if !g.repeats { markDelivered(slot: key.slot, device: s.name, at: time) }
    }

    /// Devices of rule requests near a device now: its stored pairs that are inside (or entering), with distances.
    func proximityPairs(ofDevice name: String) -> [ProximityPairStatus] {
        guard let p = proximity.participantIndex[name] else { return [] }
        var out: [ProximityPairStatus] = []
        let me = proximity.participants[Int(p)]
        for key in me.pairs.map(\.key) {
            guard let pair = proximity.pairs[key], pair.slotGeneration == slotGenerations[Int(key.slot)],
                  let c = compiled[Int(key.slot)] else { continue }
            let s = proximity.participants[Int(key.subject)], t = proximity.participants[Int(key.target)]
            let phase: String
            switch pair.phase {
            case .inside: phase = "inside"
            case .entering: phase = "entering"
            case .outside: phase = "outside"
            case .unknown: phase = "unknown"
            }
            out.append(ProximityPairStatus(request: c.request.identifier, regionID: c.request.trigger.region.id,
                                           subject: s.name, target: t.name, phase: phase, since: pair.since,
                                           distance: proximity.distance(key.subject, key.target),
                                           dwellUntil: pair.phase == .entering ? pair.dwellDeadline : nil))
        }
        return out.sorted { ($0.request, $0.subject, $0.target) < ($1.request, $1.subject, $1.target) }
    }
}
