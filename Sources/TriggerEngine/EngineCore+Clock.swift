extension EngineCore {
    /// Moves the clock forward and fires the deadlines of devices that have gone silent. Going backwards does
    /// nothing: the clock never runs back. Returns whether more than the clock changed (a deadline came due or an
    /// idle sweep ran): a move that changed only the clock is the same as the next move's, which a live host uses
    /// to leave such ticks out of its journal.
    @discardableResult
    mutating func advance(to time: Timestamp, emit: (FiredNotification) -> Void) -> Bool {
        guard time > now else { return false }
        now = time
        let swept = lastSweep
        var due = false
        if let limit = silentLimit {
            due = timers.min.map { $0.wake <= limit } ?? false
            fireSilentDevices(through: limit, emit: emit)
        }
        sweepIdleDevices(emit: emit)
        if proximity.isActive { releaseProximity(emit: emit) }
        return due || lastSweep != swept
    }

    /// Forgets devices idle for `idleDeviceExpiry`, every `idleSweepPeriod` of the clock. Event time: by the
    /// watermark, so one device running ahead cannot make the others idle; it moves after an input, so the sweep
    /// follows each input.
    mutating func sweepIdleDevices(emit: (FiredNotification) -> Void) {
        guard let expiry = idleDeviceExpiry, let period = idleSweepPeriod else { return }
        let clock = firingClock
        guard clock > .distantPast, lastSweep == .distantPast || clock >= lastSweep + period else { return }
        lastSweep = clock
        expireIdleDevices(olderThan: Timestamp(microseconds: clock.microseconds - expiry.microseconds), emit: emit)
    }

    /// End of input: every device is silent, so every deadline up to the clock fires.
    mutating func finish(emit: (FiredNotification) -> Void) {
        fireSilentDevices(through: now, ignoringArrival: true, emit: emit)
        // Every queued proximity input is decided; dwells later than the newest time stay pending, as above.
        if proximity.isActive, now > proximity.released { releaseProximity(through: now, emit: emit) }
    }

    /// The clock (event time: the watermark) less the allowed lateness: deadlines up to here may fire without their
    /// device's word.
    var silentLimit: Timestamp? {
        guard let lateness = allowedLateness else { return nil }
        return Timestamp(microseconds: firingClock.microseconds &- lateness.microseconds)
    }

    /// Event time: an input that arrived behind the watermark may leave a deadline the watermark is already past by
    /// the allowed lateness; it fires now, as it would have when the watermark passed it in time order.
    @inline(__always)
    mutating func fireOverdue(emit: (FiredNotification) -> Void) {
        guard configuration.clock == .eventTime else { return }
        if let limit = silentLimit, let top = timers.min, top.wake <= limit { fireSilentDevices(through: limit, emit: emit) }
        if idleSweepPeriod != nil { sweepIdleDevices(emit: emit) }
    }

    /// Fires, device by device, the deadlines up to `limit`. With a wall clock only of devices whose last input
    /// arrived no later than `limit` too: a device still uploading what it buffered offline decides for itself, and
    /// its entry waits until it has been silent long enough. Event time needs no such wait: the watermark bounds how
    /// late an input may arrive.
    mutating func fireSilentDevices(through limit: Timestamp, ignoringArrival: Bool = false, emit: (FiredNotification) -> Void) {
        let waitForSilence = !ignoringArrival && configuration.clock == .external
        while let top = timers.min, top.wake <= limit {
            var t = timers.removeMin()
            let d = Int(t.device)
            guard d < devices.count, !devices[d].name.isEmpty else { continue }
            let arrival = observers[d].lastArrival
            if waitForSilence, arrival > limit {
                // Nothing left to settle (an input of the device settled it, as a scanner's listening tick does a
                // beacon exit): the timer goes. Following the arrivals of a device that keeps reporting, it woke
                // the clock every allowed lateness for nothing, and each such tick was journaled.
                guard nextDeadline(device: t.device) != nil else { continue }
                t.wake = arrival
                timers.insert(t)
                continue
            }
            settle(device: t.device, through: limit, kinds: .all, byClock: true, emit: emit)
            // A beacon exit moves with every matching sighting, so the entry that woke the clock may be older than
            // the device's real next deadline: schedule that one.
            if let next = nextDeadline(device: t.device) {
                timers.insert(TimerEntry(deadline: next.deadline, device: t.device, slot: next.slot,
                                         slotGeneration: slotGenerations[Int(next.slot)], kind: next.kind))
            }
        }
    }

    /// The device's earliest pending deadline, if any.
    func nextDeadline(device d: Int32) -> (deadline: Timestamp, slot: Int32, kind: TimerEntry.Kind)? {
        var best: (deadline: Timestamp, slot: Int32, kind: TimerEntry.Kind)?
        for p in devices[Int(d)].pairs where slotGenerations[Int(p.slot)] == p.slotGeneration {
            let g = slots[Int(p.slot)]
            if p.phase == .entering, best.map({ p.dwellDeadline < $0.deadline }) ?? true {
                best = (p.dwellDeadline, p.slot, .dwell)
            }
            if g.kind == .beacon, p.phase == .inside || p.phase == .entering {
                let exit = p.lastMatch + g.exitTimeout
                if best.map({ exit < $0.deadline }) ?? true { best = (exit, p.slot, .beaconExit) }
            }
        }
        return best
    }

    /// Which deadlines an input settles: a fix those of geofences, a sighting those of beacon regions (the two are
    /// separate timelines of one device), the clock both.
    enum SettleKinds { case geofences, beacons, all }

    /// Fires a device's pending deadlines up to `time`, in deadline order, from its stored pairs: a dwell whose
    /// device stayed inside, a beacon region not heard for its exit timeout. `byClock`: no input of the device says
    /// so, the clock does; the device's timeline then moves to each fired deadline, so a later input older than it
    /// is late.
    mutating func settle(device d: Int32, through time: Timestamp, kinds: SettleKinds, byClock: Bool,
                         emit: (FiredNotification) -> Void) {
        due.removeAll(keepingCapacity: true)
        // Each pair's phase first, in place: only an entering pair (or, for beacons, an inside one) can be due, and
        // most pairs are neither, so neither the list nor a pair is copied and no other pair's request is read.
        let count = devices[Int(d)].pairs.count
        var i = 0
        while i < count {
            let phase = devices[Int(d)].pairs[i].phase
            i += 1
            guard phase == .entering || (phase == .inside && kinds != .geofences) else { continue }
            let p = devices[Int(d)].pairs[i - 1]
            let s = Int(p.slot)
            guard slotGenerations[s] == p.slotGeneration else { continue }
            let g = slots[s]
            let beacon = g.kind == .beacon
            guard g.kind != .empty else { continue }
            switch kinds {
            case .geofences: if beacon { continue }
            case .beacons: if !beacon { continue }
            case .all: break
            }
            if p.phase == .entering, p.dwellDeadline <= time {
                due.append(TimerEntry(deadline: p.dwellDeadline, device: d, slot: p.slot, slotGeneration: p.slotGeneration, kind: .dwell))
            }
            if beacon, p.phase == .inside || p.phase == .entering, p.lastMatch + g.exitTimeout <= time {
                due.append(TimerEntry(deadline: p.lastMatch + g.exitTimeout, device: d, slot: p.slot,
                                      slotGeneration: p.slotGeneration, kind: .beaconExit))
            }
        }
        guard !due.isEmpty else { return }
        if due.count > 1 { due.sort() }
        for k in due.indices {
            let t = due[k]
            if byClock {
                if slots[Int(t.slot)].kind == .beacon {
                    if t.deadline > observers[Int(d)].lastSightingTime { observers[Int(d)].lastSightingTime = t.deadline }
                } else if t.deadline > devices[Int(d)].lastFixTime {
                    devices[Int(d)].lastFixTime = t.deadline
                    // The fingerprint belongs to the fix at the old time: no fix is at the new one.
                    devices[Int(d)].lastFixFingerprint = 0
                }
            }
            handle(t, emit: emit)
        }
    }

    /// Fires one due deadline if its pair is still waiting for it (an earlier one of the same settle may have moved
    /// it on).
    mutating func handle(_ t: TimerEntry, emit: (FiredNotification) -> Void) {
        guard Int(t.device) < devices.count, slotGenerations[Int(t.slot)] == t.slotGeneration,
            slots[Int(t.slot)].kind != .empty, let k = pairIndex(device: t.device, slot: t.slot)
        else { return }
        let pair = devices[Int(t.device)].pairs[k]
        // The clock's own action, unless the device's input is settling it: its events get a clock marker.
        let byInput = explain.currentDevice == t.device
        defer { if explain.isOn, !byInput { explain.currentDevice = -1 } }
        switch t.kind {
        case .dwell:
            guard pair.phase == .entering, pair.dwellDeadline == t.deadline else { return }
            noteEvent(.dwellCompleted, device: t.device, slot: t.slot, at: t.deadline)
            devices[Int(t.device)].pairs[k].phase = .inside
            devices[Int(t.device)].pairs[k].since = t.deadline
            devices[Int(t.device)].pairs[k].dwellDeadline = .distantFuture
            statistics.entries += 1
            fire(device: t.device, slot: t.slot, pair: k, event: .entry, at: t.deadline, evidence: pair.evidence, emit: emit)
        case .beaconExit:
            guard pair.phase == .inside || pair.phase == .entering,
                pair.lastMatch + slots[Int(t.slot)].exitTimeout == t.deadline
            else { return }
            nextStamp()
            transition(device: t.device, slot: t.slot, side: .outside, time: t.deadline, evidence: pair.evidence, emit: emit)
        }
        compactPairs(device: t.device, at: t.deadline)
    }

    /// An observer's listening tick: settles its beacon deadlines up to `time` like a sighting with no beacon in it.
    mutating func observerListening(device name: String, at time: Timestamp, emit: (FiredNotification) -> Void) {
        if configuration.clock == .eventTime, time > now { advance(to: time, emit: emit) }
        let d = deviceIndex(name, at: time)
        guard time >= observers[Int(d)].lastSightingTime else { return }
        if observers[Int(d)].observingSince == .distantFuture { observers[Int(d)].observingSince = time }
        settle(device: d, through: time, kinds: .beacons, byClock: false, emit: emit)
        observers[Int(d)].lastSightingTime = time
        noteActivity(device: d, at: time)
        observers[Int(d)].lastArrival = now
    }

    /// The newest fix, sighting or listening start of a device.
    func lastActivity(device d: Int) -> Timestamp {
        let o = observers[d]
        return max(devices[d].lastFixTime, o.lastSightingTime, o.observingSince == .distantFuture ? .distantPast : o.observingSince)
    }

    mutating func expireIdleDevices(olderThan cutoff: Timestamp, emit: (FiredNotification) -> Void) {
        var expired: [Int] = []
        for d in devices.indices where !devices[d].name.isEmpty && lastActivity(device: d) < cutoff {
            // Pending dwell or beacon deadlines keep a device: its state still has something to say.
            if devices[d].pairs.contains(where: { $0.phase == .entering || ($0.phase == .inside && slots[Int($0.slot)].kind == .beacon) }) {
                continue
            }
            expired.append(d)
        }
        guard !expired.isEmpty else { return }
        if configuration.expiryExits, let expiry = idleDeviceExpiry {
            // By name: record indices differ after a restore, and the order decides the notifications' order.
            expired.sort { devices[$0].name < devices[$1].name }
            for d in expired { fireExpiryExits(device: Int32(d), at: lastActivity(device: d) + expiry, emit: emit) }
        }
        for d in expired {
            deviceTable.remove(hash: DeviceTable.hash(devices[d].name), index: Int32(d))
            explain.release(observers[d].explainRing)
            devices[d] = DeviceRecord(name: "")
            observers[d] = ObserverRecord()
            freeDevices.append(Int32(d))
            statistics.devicesExpired += 1
        }
        recomputeWatermark()
        compactDevicesIfSparse()
    }

    /// A forgotten device leaves the geofences it is inside: an exit where the request asks for one.
    mutating func fireExpiryExits(device d: Int32, at time: Timestamp, emit: (FiredNotification) -> Void) {
        let dev = devices[Int(d)], o = observers[Int(d)]
        let evidence: Evidence? = o.lastLatitude.isNaN ? nil
            : .fix(FixSnapshot(timestamp: dev.lastFixTime, latitude: o.lastLatitude, longitude: o.lastLongitude,
                               horizontalAccuracy: o.lastAccuracy.isNaN ? nil : o.lastAccuracy))
        for p in dev.pairs where p.phase == .inside && slotGenerations[Int(p.slot)] == p.slotGeneration {
            let kind = slots[Int(p.slot)].kind
            guard kind == .circle || kind == .polygon else { continue }
            transition(device: d, slot: p.slot, side: .outside, time: time, evidence: evidence ?? p.evidence, emit: emit)
        }
    }
}
