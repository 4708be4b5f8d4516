extension EngineCore {
    /// Evaluates one beacon sighting (SPEC §3 beacon regions): a matching sighting at the required proximity makes
    /// the observer inside; `exitTimeout` without one makes it outside, fired by the clock.
    @discardableResult
    mutating func process(_ s: BeaconSighting, emit: (FiredNotification) -> Void) -> TriggerEngine.Outcome {
        guard !s.device.isEmpty else { return reject(.missingDevice) }
        if isFuture(s.timestamp, device: s.device) { return reject(.future) }
        if configuration.clock == .eventTime, s.timestamp > now { advance(to: s.timestamp, emit: emit) }
        let d = deviceIndex(s.device, at: s.timestamp)
        if s.timestamp < observers[Int(d)].lastSightingTime {
            if explain.isOn {
                noteInput(device: d, kind: .sighting, time: s.timestamp, a: s.rssi.map(Double.init) ?? .nan, b: s.distance ?? .nan, accuracy: nil, rejection: .late)
                explain.currentDevice = -1
            }
            return reject(.late)
        }
        statistics.sightingsEvaluated += 1
        if explain.isOn {
            noteInput(device: d, kind: .sighting, time: s.timestamp, a: s.rssi.map(Double.init) ?? .nan, b: s.distance ?? .nan, accuracy: nil, rejection: nil)
        }
        // Per-device time: the observer's own sighting settles its beacon deadlines up to its timestamp, first.
        settle(device: d, through: s.timestamp, kinds: .beacons, byClock: false, emit: emit)
        observers[Int(d)].lastArrival = now
        if observers[Int(d)].observingSince == .distantFuture { observers[Int(d)].observingSince = s.timestamp }
        observers[Int(d)].lastSightingTime = s.timestamp
        noteActivity(device: d, at: s.timestamp)
        guard let identity = s.identity else {
            statistics.telemetryFrames += 1
            if explain.isOn { explain.currentDevice = -1 }
        fireOverdue(emit: emit)
            return .evaluated
        }
        let matching: [Int32]
        switch identity {
        case let .iBeacon(uuid, _, _), let .altBeacon(uuid, _, _): matching = beaconSlotsByUUID[uuid] ?? []
        case let .eddystoneUID(namespace, _): matching = beaconSlotsByNamespace[namespace] ?? []
        }
        guard !matching.isEmpty else {
            if explain.isOn { explain.currentDevice = -1 }
        fireOverdue(emit: emit)
            return .evaluated
        }
        nextStamp()
        let snapshot = BeaconSnapshot(timestamp: s.timestamp, identity: identity, rssi: s.rssi, proximity: s.proximity,
                                      distance: s.distance, address: s.address)
        for slot in matching {
            guard let c = compiled[Int(slot)], case let .beacon(region) = c.request.trigger.region.shape else { continue }
            let exitTimeout = slots[Int(slot)].exitTimeout
            guard region.matches(identity), s.proximity.satisfies(region.proximity) else { continue }
            if slots[Int(slot)].scoped, !c.request.trigger.applies(to: s.device) { continue }
            let before = pairIndex(device: d, slot: slot).map { devices[Int(d)].pairs[$0].phase }
                ?? impliedPhase(device: d, slot: slot, at: s.timestamp)
            let after = transition(device: d, slot: slot, side: .inside, time: s.timestamp, evidence: .beacon(snapshot), emit: emit)
            // The request may have been delivered (repeats: false) by this very sighting.
            guard slots[Int(slot)].kind != .empty, let k = pairIndex(device: d, slot: slot) else { continue }
            devices[Int(d)].pairs[k].lastMatch = s.timestamp
            devices[Int(d)].pairs[k].evidence = .beacon(snapshot)
            if before != .inside, before != .entering, after == .inside || after == .entering {
                timers.insert(TimerEntry(deadline: s.timestamp + exitTimeout, device: d, slot: slot,
                                         slotGeneration: slotGenerations[Int(slot)], kind: .beaconExit))
            }
        }
        compactPairs(device: d, at: s.timestamp)
        if explain.isOn { explain.currentDevice = -1 }
        fireOverdue(emit: emit)
        return .evaluated
    }

    /// Records that an observer started listening at `time` (a scanner coming up), so a beacon first heard after
    /// the initial scan window is an entry, and one heard within it the initial state.
    mutating func observerStarted(device: String, at time: Timestamp) {
        let d = deviceIndex(device, at: time)
        if observers[Int(d)].observingSince == .distantFuture || time < observers[Int(d)].observingSince {
            observers[Int(d)].observingSince = time
        }
        observers[Int(d)].lastArrival = max(observers[Int(d)].lastArrival, now)
        noteActivity(device: d, at: lastActivity(device: Int(d)))
    }
}
