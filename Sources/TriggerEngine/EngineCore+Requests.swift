import Geometry

extension EngineCore {
    /// Adds a request, or replaces the one with the same identifier; either way its per-device state starts afresh.
    /// The request must come from `RequestDecoder` or be built in code; templates are checked here too.
    @discardableResult
    mutating func add(_ request: NotificationRequest) throws(RequestError) -> TriggerEngine.AddOutcome {
        let templates = try CompiledTemplates(request, reusing: lastTemplates)
        lastTemplates = templates
        guard !request.identifier.isEmpty else { throw RequestError(path: "identifier", reason: "must not be empty") }
        let replaced = removeSlot(identifier: request.identifier)
        // No hashing of the identifier when nothing was delivered (a region file's load).
        if !deliveredIndex.isEmpty, let d = deliveredIndex.removeValue(forKey: request.identifier) {
            delivered.remove(at: d)
            for (k, r) in delivered.enumerated() { deliveredIndex[r.request.identifier] = k }
        }
        generation += 1
        revisionCounter += 1
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = Int32(compiled.count)
            compiled.append(nil)
            firingCounts.append(0)
            plans.append(nil)
            slots.append(SlotGeometry())
            polygonLocators.append(nil)
            polygonGrids.append(.empty)
            slotGenerations.append(0)
            slotStamp.append(0)
            occupantCandidates.append([])
            occupantCompactAt.append(Self.minimumOccupantCompaction)
        }
        slotsByRegion[request.trigger.region.id, default: []].append(slot)
        let t = request.trigger
        compiled[Int(slot)] = CompiledRequest(request: request, templates: templates, revision: revisionCounter)
        firingCounts[Int(slot)] = 0
        plans[Int(slot)] = nil
        var g = SlotGeometry()
        g.notifyOnEntry = t.notifyOnEntry
        g.notifyOnExit = t.notifyOnExit
        g.initialTrigger = t.initialTrigger
        g.repeats = t.repeats
        g.dwell = .init(seconds: t.dwell)
        g.minimumInterval = .init(seconds: t.minimumInterval)
        g.exitTimeout = .init(seconds: t.exitTimeout)
        g.addedGeneration = generation
        g.addedAt = now
        g.hysteresis = t.hysteresis
        g.maximumAccuracy = t.maximumAccuracy ?? .infinity
        g.scoped = t.devices != nil
        let grow: (BoundingBox) -> BoundingBox = { b in
            guard t.hysteresis > 0 else { return b }
            let dLat = Geodesy.latitudeDegrees(spanning: t.hysteresis)
            let dLon = Geodesy.longitudeDegrees(spanning: t.hysteresis, atLatitude: max(abs(b.minLatitude), abs(b.maxLatitude)))
            return BoundingBox(minLatitude: max(-90, b.minLatitude - dLat), maxLatitude: min(90, b.maxLatitude + dLat),
                               minLongitude: max(-180, b.minLongitude - dLon), maxLongitude: min(180, b.maxLongitude + dLon))
        }
        switch t.region.shape {
        case let .circle(center, radius):
            g.kind = .circle
            g.center = Geodesy.ECEF(center)
            g.radius = radius
            let c = Geodesy.chord(arc: radius)
            g.radiusChordSquared = c * c
            index.insert(slot: slot, boxes: BoundingBox.covering(center: center, radius: radius + t.hysteresis))
        case let .polygon(set):
            g.kind = .polygon
            let locator = PolygonLocator(set)
            polygonLocators[Int(slot)] = locator
            polygonGrids[Int(slot)] = locator.grid
            index.insert(slot: slot, boxes: set.partBounds.map(grow))
        case let .beacon(region):
            g.kind = .beacon
            switch region.identifier {
            case let .uuid(u, _, _): beaconSlotsByUUID[u, default: []].append(slot)
            case let .eddystone(ns, _): beaconSlotsByNamespace[ns, default: []].append(slot)
            }
        case .proximity:
            g.kind = .proximity
            proximity.requestCount += 1
            proximity.needsRebuild = true
        }
        slots[Int(slot)] = g
        slotByIdentifier[request.identifier] = slot
        return replaced ? .replaced : .added
    }

    /// Room for `n` more requests in the per-slot arrays and the identifier and region tables: a region file's adds
    /// then grow none of them step by step (each growth of a table hashed every identifier in it again).
    mutating func reserve(additional n: Int) {
        let total = compiled.count + n
        compiled.reserveCapacity(total)
        firingCounts.reserveCapacity(total)
        plans.reserveCapacity(total)
        slots.reserveCapacity(total)
        polygonLocators.reserveCapacity(total)
        slotGenerations.reserveCapacity(total)
        slotStamp.reserveCapacity(total)
        occupantCandidates.reserveCapacity(total)
        occupantCompactAt.reserveCapacity(total)
        slotByIdentifier.reserveCapacity(slotByIdentifier.count + n)
        slotsByRegion.reserveCapacity(slotsByRegion.count + n)
    }

    /// The pending request with this identifier.
    func request(_ identifier: String) -> NotificationRequest? {
        slotByIdentifier[identifier].flatMap { compiled[Int($0)]?.request }
    }

    mutating func removeSlot(identifier: String) -> Bool {
        guard let slot = slotByIdentifier.removeValue(forKey: identifier) else { return false }
        let s = Int(slot)
        switch slots[s].kind {
        case .circle, .polygon:
            index.remove(slot: slot)
        case .beacon:
            if case let .beacon(region)? = compiled[s]?.request.trigger.region.shape {
                switch region.identifier {
                case let .uuid(u, _, _):
                    beaconSlotsByUUID[u]?.removeAll { $0 == slot }
                    if beaconSlotsByUUID[u]?.isEmpty == true { beaconSlotsByUUID[u] = nil }
                case let .eddystone(ns, _):
                    beaconSlotsByNamespace[ns]?.removeAll { $0 == slot }
                    if beaconSlotsByNamespace[ns]?.isEmpty == true { beaconSlotsByNamespace[ns] = nil }
                }
            }
        case .proximity:
            proximity.requestCount -= 1
            proximity.needsRebuild = true
        case .empty:
            break
        }
        if let region = compiled[s]?.request.trigger.region.id {
            slotsByRegion[region]?.removeAll { $0 == slot }
            if slotsByRegion[region]?.isEmpty == true { slotsByRegion[region] = nil }
        }
        occupantCandidates[s].removeAll()
        occupantCompactAt[s] = Self.minimumOccupantCompaction
        compiled[s] = nil
        plans[s] = nil
        slots[s] = SlotGeometry()
        polygonLocators[s] = nil
        polygonGrids[s] = .empty
        // Pair states that still name this slot are recognised as stale by the generation and dropped lazily.
        slotGenerations[s] &+= 1
        freeSlots.append(slot)
        return true
    }

    /// Moves a fired `repeats: false` request from pending to delivered.
    mutating func markDelivered(slot: Int32, device: String, at time: Timestamp) {
        guard let c = compiled[Int(slot)] else { return }
        let id = c.request.identifier
        _ = removeSlot(identifier: id)
        deliveredIndex[id] = delivered.count
        delivered.append(DeliveredRequest(request: c.request, deliveredAt: time, device: device))
    }
}
