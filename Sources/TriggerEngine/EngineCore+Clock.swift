extension EngineCore {
    /// Moves the clock forward, firing every dwell and beacon-exit deadline it passes, in deadline order, each at
    /// its own deadline. Going backwards does nothing: the clock never runs back.
    mutating func advance(to time: Timestamp, emit: (FiredNotification) -> Void) {
        guard time > now else { return }
        while let top = timers.min, top.deadline <= time {
            _ = timers.removeMin()
            if top.deadline > now { now = top.deadline }
            handle(top, emit: emit)
        }
        now = time
        if let expiry = configuration.idleDeviceExpiry {
            let period = Timestamp.Duration(seconds: max(1, expiry / 4))
            if lastSweep == .distantPast || time >= lastSweep + period {
                lastSweep = time
                expireIdleDevices(olderThan: Timestamp(microseconds: time.microseconds - Timestamp.Duration(seconds: expiry).microseconds))
            }
        }
    }

    mutating func handle(_ t: TimerEntry, emit: (FiredNotification) -> Void) {
        guard Int(t.device) < devices.count, slotGenerations[Int(t.slot)] == t.slotGeneration,
            slots[Int(t.slot)].kind != .empty, let k = pairIndex(device: t.device, slot: t.slot)
        else { return }
        let pair = devices[Int(t.device)].pairs[k]
        switch t.kind {
        case .dwell:
            guard pair.phase == .entering, pair.dwellDeadline == t.deadline else { return }
            devices[Int(t.device)].pairs[k].phase = .inside
            devices[Int(t.device)].pairs[k].since = t.deadline
            devices[Int(t.device)].pairs[k].dwellDeadline = .distantFuture
            statistics.entries += 1
            fire(device: t.device, slot: t.slot, pair: k, event: .entry, at: t.deadline, evidence: pair.evidence, emit: emit)
        case .beaconExit:
            guard pair.phase == .inside || pair.phase == .entering else { return }
            let due = pair.lastMatch + slots[Int(t.slot)].exitTimeout
            if due > t.deadline {
                timers.insert(TimerEntry(deadline: due, device: t.device, slot: t.slot, slotGeneration: t.slotGeneration, kind: .beaconExit))
                return
            }
            nextStamp()
            transition(device: t.device, slot: t.slot, side: .outside, time: t.deadline, evidence: pair.evidence, emit: emit)
        }
        compactPairs(device: t.device)
    }

    /// The newest fix, sighting or listening start of a device.
    func lastActivity(device d: Int) -> Timestamp {
        let o = observers[d]
        return max(devices[d].lastFixTime, o.lastSightingTime, o.observingSince == .distantFuture ? .distantPast : o.observingSince)
    }

    mutating func expireIdleDevices(olderThan cutoff: Timestamp) {
        for d in devices.indices where !devices[d].name.isEmpty && lastActivity(device: d) < cutoff {
            // Pending dwell or beacon deadlines keep a device: its state still has something to say.
            if devices[d].pairs.contains(where: { $0.phase == .entering || ($0.phase == .inside && slots[Int($0.slot)].kind == .beacon) }) {
                continue
            }
            deviceTable.remove(hash: DeviceTable.hash(devices[d].name), index: Int32(d))
            devices[d] = DeviceRecord(name: "")
            observers[d] = ObserverRecord()
            freeDevices.append(Int32(d))
            statistics.devicesExpired += 1
        }
    }
}
