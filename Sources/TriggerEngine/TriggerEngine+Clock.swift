extension TriggerEngine {
    /// Moves the clock forward, firing every dwell and beacon-exit deadline it passes, in deadline order, each at
    /// its own deadline. Going backwards does nothing: the clock never runs back.
    public func advance(to time: Timestamp, emit: (FiredNotification) -> Void) {
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

    func handle(_ t: TimerEntry, emit: (FiredNotification) -> Void) {
        guard Int(t.device) < devices.count, slotGenerations[Int(t.slot)] == t.slotGeneration,
            let c = compiled[Int(t.slot)], let k = pairIndex(device: t.device, slot: t.slot)
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
            let due = pair.lastMatch + c.exitTimeout
            if due > t.deadline {
                timers.insert(TimerEntry(deadline: due, device: t.device, slot: t.slot, slotGeneration: t.slotGeneration, kind: .beaconExit))
                return
            }
            nextStamp()
            transition(device: t.device, slot: t.slot, side: .outside, time: t.deadline, evidence: pair.evidence, emit: emit)
        }
        compactPairs(device: t.device)
    }

    func expireIdleDevices(olderThan cutoff: Timestamp) {
        for d in devices.indices where !devices[d].name.isEmpty && devices[d].lastActivity < cutoff {
            // Pending dwell or beacon deadlines keep a device: its state still has something to say.
            if devices[d].pairs.contains(where: { $0.phase == .entering || ($0.phase == .inside && geometry[Int($0.slot)].kind == .beacon) }) {
                continue
            }
            deviceByName[devices[d].name] = nil
            devices[d] = DeviceRecord(name: "")
            freeDevices.append(Int32(d))
            statistics.devicesExpired += 1
        }
    }
}
