import Geometry

/// Recording a device's inputs and decisions (`ExplainHistory`), and reading them back as explanations.
extension EngineCore {
    /// Records an input of device `d` (its ring, if it has one); its events follow it.
    @inline(__always)
    mutating func noteInput(device d: Int32, kind: ExplainEntry.Kind, time: Timestamp, a: Double, b: Double,
                            accuracy: Double?, rejection: FixRejection?) {
        let r = observers[Int(d)].explainRing
        guard r >= 0 else { return }
        var e = ExplainEntry()
        e.kind = kind
        e.time = time
        e.a = a
        e.b = b
        // Within Float32's range: an accuracy beyond it (a fix may claim 1e300 m) would read back as infinity, which
        // JSON cannot carry.
        let largest = Double(Float32.greatestFiniteMagnitude)
        e.accuracy = accuracy.map { $0.isNaN ? .nan : Float32(min(largest, max(-largest, $0))) } ?? .nan
        e.code = ExplainEntry.code(of: rejection)
        explain.currentDevice = rejection == nil ? d : -1
        append(e, device: d, ring: r)
    }

    /// Records what the current input (or, outside one, the clock) did to a request for device `d`.
    mutating func noteEvent(_ event: ExplainEvent, device d: Int32, slot: Int32, at time: Timestamp, until: Timestamp? = nil) {
        guard explain.isOn else { return }
        let r = observers[Int(d)].explainRing
        guard r >= 0 else { return }
        if explain.currentDevice != d {
            var marker = ExplainEntry()
            marker.kind = .clock
            marker.time = time
            append(marker, device: d, ring: r)
            explain.currentDevice = d
        }
        append(.event(event, slot: slot, generation: slotGenerations[Int(slot)], at: time, until: until), device: d, ring: r)
    }

    @inline(__always)
    mutating func append(_ e: ExplainEntry, device d: Int32, ring r: Int32) {
        let n = observers[Int(d)].explainWritten
        explain.write(e, ring: r, number: n)
        observers[Int(d)].explainWritten = n &+ 1
    }

    /// `reject`, and the refused fix recorded in its device's history (a device not seen before has none).
    mutating func refuse(_ fix: UnsafePointer<LocationFix>, _ reason: FixRejection, device: Int32?) -> TriggerEngine.Outcome {
        if explain.isOn, let d = device ?? existingDevice(fix.pointee.device) {
            noteInput(device: d, kind: .fix, time: fix.pointee.timestamp, a: fix.pointee.latitude, b: fix.pointee.longitude,
                      accuracy: fix.pointee.horizontalAccuracy, rejection: reason)
        }
        return reject(reason)
    }

    /// The device's recent inputs, what each did to the requests near it (or to `request` only), and its standing
    /// now; nil for a device the engine does not know. Reads the entries written since `since` (a drain's count).
    mutating func explanation(ofDevice name: String, request: String?, since: UInt64 = 0) -> (DeviceExplanation, UInt64)? {
        guard let d = existingDevice(name) else { return nil }
        // The fixes are tested against the index as `process` would: rebuilt first if requests changed.
        if index.wantsRebuild { index.rebuild() }
        let r = observers[Int(d)].explainRing
        var result = DeviceExplanation(device: name, request: request, inputs: [], omitted: 0, recorded: r >= 0,
                                       standing: standing(device: d, request: request), delivered: nil)
        if let request, slotByIdentifier[request] == nil {
            result.delivered = delivered.last { $0.request.identifier == request }
        }
        guard r >= 0 else { return (result, 0) }
        let written = observers[Int(d)].explainWritten
        let (entries, dropped) = explain.kept(ring: r, written: written, since: since)
        result.omitted = dropped
        let only = request.flatMap { slotByIdentifier[$0] }
        var k = 0
        while k < entries.count {
            let head = entries[k]
            var events: [ExplainEntry] = []
            var j = k + 1
            while j < entries.count, entries[j].kind == .event {
                events.append(entries[j])
                j += 1
            }
            if head.kind == .event {
                // Events whose input the ring no longer holds: shown under a marker of their own time.
                var marker = ExplainEntry()
                marker.kind = .clock
                marker.time = head.time
                events.insert(head, at: 0)
                result.inputs.append(explained(marker, events: events, device: d, request: request, only: only))
            } else {
                result.inputs.append(explained(head, events: events, device: d, request: request, only: only))
            }
            k = j
        }
        return (result, written)
    }

    /// Every pair the device has stored state for (the implied "outside" of the rest says nothing).
    func standing(device d: Int32, request: String?) -> [RequestStanding] {
        var out: [RequestStanding] = []
        for p in devices[Int(d)].pairs {
            guard slotGenerations[Int(p.slot)] == p.slotGeneration, let c = compiled[Int(p.slot)] else { continue }
            if let request, c.request.identifier != request { continue }
            let g = slots[Int(p.slot)]
            let phase = switch p.phase {
            case .unknown: "unknown"
            case .outside: "outside"
            case .inside: "inside"
            case .entering: "entering"
            }
            let quiet = g.minimumInterval > .zero && p.lastFired > .distantPast ? p.lastFired + g.minimumInterval : nil
            out.append(RequestStanding(request: c.request.identifier, region: c.request.trigger.region.id, phase: phase,
                                       since: p.since, dwellUntil: p.phase == .entering ? p.dwellDeadline : nil,
                                       quietUntil: quiet, lastFired: p.lastFired > .distantPast ? p.lastFired : nil))
        }
        return out.sorted { $0.request < $1.request }
    }

    /// One input with its decisions: the requests its events name, and for a fix also those the engine tested it
    /// against (the index's candidates within its accuracy), or only the one asked about.
    mutating func explained(_ e: ExplainEntry, events: [ExplainEntry], device d: Int32, request: String?, only: Int32?) -> ExplainedInput {
        var input = ExplainedInput(kind: .clock, time: e.time, latitude: nil, longitude: nil, horizontalAccuracy: nil,
                                   rssi: nil, refused: e.rejection, decisions: [])
        let accuracy: Double? = e.accuracy.isNaN ? nil : Double(e.accuracy)
        switch e.kind {
        case .fix:
            input.kind = .fix
            input.latitude = e.a
            input.longitude = e.b
            input.horizontalAccuracy = accuracy
        case .sighting:
            input.kind = .sighting
            input.rssi = e.a.isNaN ? nil : e.a
        case .clock, .event, .empty:
            break
        }
        if input.refused != nil { return input }
        // Slots in the order they were first named: events first (what happened), then the rest tested.
        var keys: [UInt64] = []
        for ev in events where !keys.contains(ev.a.bitPattern) {
            if let only, ev.slot != only { continue }
            keys.append(ev.a.bitPattern)
        }
        if e.kind == .fix {
            var tested: [Int32] = []
            if let only {
                tested = [only]
            } else if request == nil {
                var cache = RegionIndex.CellCache()
                index.query(latitude: e.a, longitude: e.b, margin: accuracy ?? 0, stamp: nextStamp(), stamps: &slotStamp,
                            into: &tested, cache: &cache)
                tested.sort()
            }
            for slot in tested where compiled[Int(slot)] != nil {
                let key = UInt64(UInt32(bitPattern: slot)) << 32 | UInt64(slotGenerations[Int(slot)])
                if !keys.contains(key) { keys.append(key) }
            }
        }
        for key in keys {
            let slot = Int32(bitPattern: UInt32(truncatingIfNeeded: key >> 32)), generation = UInt32(truncatingIfNeeded: key)
            let mine = events.filter { $0.a.bitPattern == key }
            input.decisions.append(decision(slot: slot, generation: generation, events: mine, input: input, device: d))
        }
        if let request { input.decisions.removeAll { $0.request != request } }
        return input
    }

    func decision(slot: Int32, generation: UInt32, events: [ExplainEntry], input: ExplainedInput, device d: Int32) -> Decision {
        let codes = events.compactMap { ExplainEvent(rawValue: $0.code) }
        var x = Decision(request: "", region: nil, standing: .removed, distanceToEdge: nil, band: nil, outcome: .unchanged,
                         fired: codes.contains(.fired), suppressedUntil: nil, dwellUntil: nil,
                         delivered: codes.contains(.delivered), reason: "")
        for (ev, code) in zip(events, codes) {
            switch code {
            case .entered: x.outcome = .entered
            case .initiallyInside: x.outcome = .initiallyInside
            case .dwellStarted: x.outcome = .dwellStarted; x.dwellUntil = ev.until
            case .dwellCancelled: x.outcome = .dwellCancelled
            case .dwellCompleted: x.outcome = .dwellCompleted
            case .exited: x.outcome = .exited
            case .suppressed: x.suppressedUntil = ev.until
            case .fired, .delivered: break
            }
        }
        let live = slotGenerations[Int(slot)] == generation && compiled[Int(slot)] != nil
        if live, let c = compiled[Int(slot)] {
            x.request = c.request.identifier
            x.region = c.request.trigger.region.id
            let g = slots[Int(slot)]
            if input.kind == .fix, let latitude = input.latitude, let longitude = input.longitude {
                let accuracy = input.horizontalAccuracy ?? 0
                if g.kind == .beacon {
                    x.standing = .notApplicable
                } else if g.scoped, !c.request.trigger.applies(to: devices[Int(d)].name) {
                    x.standing = .outOfScope
                } else if accuracy > g.maximumAccuracy {
                    x.standing = .accuracyTooLow
                } else {
                    let margin = accuracy + g.hysteresis
                    var ecef: Geodesy.ECEF?
                    x.standing = switch classify(slot: slot, g: g, latitude: latitude, longitude: longitude, ecef: &ecef, margin: margin) {
                    case .inside: .inside
                    case .outside: .outside
                    case .uncertain: .uncertain
                    }
                    x.band = margin
                    x.distanceToEdge = distanceToEdge(slot: slot, g: g, latitude: latitude, longitude: longitude)
                }
            } else {
                x.standing = Self.standing(after: x.outcome)
            }
        } else {
            // Removed since, or delivered (`repeats: false`) by this very input: the name from the delivered list.
            x.standing = Self.standing(after: x.outcome)
            if x.delivered, let last = events.last,
                let done = delivered.last(where: { $0.device == devices[Int(d)].name && $0.deliveredAt == last.time }) {
                x.request = done.request.identifier
                x.region = done.request.trigger.region.id
                if input.kind == .fix, let latitude = input.latitude, let longitude = input.longitude,
                    case let .circle(center, radius) = done.request.trigger.region.shape {
                    x.distanceToEdge = radius - Geodesy.distance(center, Coordinate(latitude: latitude, longitude: longitude))
                }
            } else {
                x.request = "(a request since removed or replaced)"
            }
        }
        x.reason = x.sentence(input: input, request: live ? compiled[Int(slot)]?.request : nil)
        return x
    }

    static func standing(after outcome: Decision.Outcome) -> Decision.Standing {
        switch outcome {
        case .entered, .initiallyInside, .dwellStarted, .dwellCompleted: .inside
        case .exited, .dwellCancelled: .outside
        case .unchanged: .removed
        }
    }

    /// Metres from the region's edge, positive inside.
    func distanceToEdge(slot: Int32, g: SlotGeometry, latitude: Double, longitude: Double) -> Double? {
        switch g.kind {
        case .circle:
            let c2 = Geodesy.ECEF(Coordinate(latitude: latitude, longitude: longitude)).chordSquared(to: g.center)
            return g.radius - Geodesy.arc(chord: c2.squareRoot())
        case .polygon:
            let grid = polygonGrids[Int(slot)]
            guard let d = grid.distanceToBoundary(latitude: latitude, longitude: longitude) else { return nil }
            return grid.locate(latitude: latitude, longitude: longitude) == .outside ? -d : d
        case .beacon, .proximity, .empty:
            return nil
        }
    }
}
