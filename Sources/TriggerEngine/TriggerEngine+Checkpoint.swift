/// The engine's state in a compact binary form, for the service's checkpoints: a restart reads it back, then
/// replays the journal after it. Binary rather than the per-device text of `TriggerEngine+Persistence`, because a
/// checkpoint holds every device at once (a million devices must restore in seconds).
///
/// Requests are not in it: the host stores their JSON and restores them first (`restore(_:state:)`, in revision
/// order), then calls `restoreCheckpoint`. Pairs name their request by revision, which no other request shares.
extension TriggerEngine {
    /// 2 added each device's newest position, 3 the proximity state (`encodeProximity`); older versions still
    /// restore.
    static let checkpointVersion: UInt8 = 3

    /// Appends the counters, the expiry sweep time and every device with its pairs.
    public func encodeCheckpoint(into w: inout ByteWriter) {
        w.u8(Self.checkpointVersion)
        w.u64(core.generation)
        w.u64(core.revisionCounter)
        w.timestamp(core.now)
        w.timestamp(core.lastSweep)
        let live = core.devices.indices.filter { !core.devices[$0].name.isEmpty }
        w.u32(UInt32(live.count))
        for d in live {
            let dev = core.devices[d], o = core.observers[d]
            w.string(dev.name)
            w.timestamp(dev.lastFixTime)
            w.u64(dev.lastFixFingerprint)
            w.u64(dev.lastGeneration)
            w.timestamp(o.lastSightingTime)
            w.timestamp(o.observingSince)
            w.timestamp(o.lastArrival)
            w.timestamp(o.lastFiring)
            w.u32(o.firingOrdinal)
            w.double(o.lastLatitude)
            w.double(o.lastLongitude)
            w.double(o.lastAccuracy)
            let pairs = dev.pairs.filter { core.slotGenerations[Int($0.slot)] == $0.slotGeneration && core.compiled[Int($0.slot)] != nil }
            w.u32(UInt32(pairs.count))
            for p in pairs {
                w.u64(core.compiled[Int(p.slot)]!.revision)
                w.u8(p.phase.rawValue)
                w.timestamp(p.since)
                w.timestamp(p.lastFired)
                w.timestamp(p.dwellDeadline)
                w.timestamp(p.lastMatch)
                Self.encode(p.evidence, into: &w)
            }
        }
        encodeProximity(into: &w)
    }

    /// Reads what `encodeCheckpoint` wrote into an engine whose requests are restored already. Pairs of a revision
    /// the engine does not have are dropped (cannot happen with a checkpoint and its own requests).
    public func restoreCheckpoint(from r: inout ByteReader) throws(PersistenceError) {
        do {
            let version = try r.u8()
            guard (1...Self.checkpointVersion).contains(version) else {
                throw PersistenceError(device: "", reason: "unknown checkpoint version \(version)")
            }
            let counters = Counters(generation: try r.u64(), revisionCounter: try r.u64(), now: try r.timestamp())
            core.lastSweep = try r.timestamp()
            var slotByRevision: [UInt64: Int32] = [:]
            for (k, c) in core.compiled.enumerated() { if let c { slotByRevision[c.revision] = Int32(k) } }
            let count = Int(try r.u32())
            // Sized once: a million devices would otherwise grow the table and the arrays by doubling, rehashing
            // and copying along the way (9 % of a 1M-device restart, measured).
            let total = core.devices.count + count
            core.devices.reserveCapacity(total)
            core.observers.reserveCapacity(total)
            core.deviceTable.reserve(total)
            for _ in 0..<count {
                let name = try r.string()
                let lastFixTime = try r.timestamp(), fingerprint = try r.u64(), lastGeneration = try r.u64()
                var o = ObserverRecord()
                o.lastSightingTime = try r.timestamp()
                o.observingSince = try r.timestamp()
                o.lastArrival = try r.timestamp()
                o.lastFiring = try r.timestamp()
                o.firingOrdinal = try r.u32()
                if version >= 2 {
                    o.lastLatitude = try r.double()
                    o.lastLongitude = try r.double()
                    o.lastAccuracy = try r.double()
                }
                let d = core.deviceIndex(name, at: max(lastFixTime, o.lastSightingTime))
                core.devices[Int(d)].lastFixTime = lastFixTime
                core.devices[Int(d)].lastFixFingerprint = fingerprint
                core.devices[Int(d)].lastGeneration = lastGeneration
                core.devices[Int(d)].pairs.removeAll()
                core.observers[Int(d)] = o
                let pairs = Int(try r.u32())
                for _ in 0..<pairs {
                    let revision = try r.u64()
                    guard let phase = PairState.Phase(rawValue: try r.u8()) else {
                        throw PersistenceError(device: name, reason: "unknown pair phase")
                    }
                    let since = try r.timestamp(), lastFired = try r.timestamp(), dwellDeadline = try r.timestamp()
                    let lastMatch = try r.timestamp()
                    let evidence = try Self.decodeEvidence(&r, device: name)
                    guard let slot = slotByRevision[revision] else { continue }
                    var p = PairState(slot: slot, slotGeneration: core.slotGenerations[Int(slot)], phase: phase, since: since)
                    p.lastFired = lastFired
                    p.dwellDeadline = dwellDeadline
                    p.lastMatch = lastMatch
                    p.evidence = evidence
                    core.devices[Int(d)].pairs.append(p)
                    core.scheduleDeadlines(of: p, device: d)
                    if p.phase == .inside || p.phase == .entering { core.noteOccupant(device: d, slot: p.slot) }
                }
            }
            if version >= 3 { try restoreProximity(from: &r, slotByRevision: slotByRevision) }
            core.recomputeWatermark()
            restore(counters: counters)
        } catch let e as PersistenceError {
            throw e
        } catch {
            throw PersistenceError(device: "", reason: "checkpoint \(error)")
        }
    }

    static func encode(_ e: Evidence?, into w: inout ByteWriter) {
        switch e {
        case nil:
            w.u8(0)
        case .fix(let f):
            w.u8(1)
            w.timestamp(f.timestamp)
            w.double(f.latitude)
            w.double(f.longitude)
            w.optionalDouble(f.horizontalAccuracy)
        case .beacon(let b):
            w.u8(2)
            w.timestamp(b.timestamp)
            switch b.identity {
            case let .iBeacon(uuid, major, minor):
                w.u8(0); w.u64(uuid.high); w.u64(uuid.low); w.u64(UInt64(major) << 16 | UInt64(minor))
            case let .altBeacon(id1, id2, id3):
                w.u8(1); w.u64(id1.high); w.u64(id1.low); w.u64(UInt64(id2) << 16 | UInt64(id3))
            case let .eddystoneUID(namespace, instance):
                w.u8(2); w.u64(UInt64(namespace.high)); w.u64(namespace.low); w.u64(instance.value)
            }
            if let rssi = b.rssi { w.u8(1); w.i64(Int64(rssi)) } else { w.u8(0) }
            w.u8(UInt8(Proximity.allCases.firstIndex(of: b.proximity) ?? 3))
            w.optionalDouble(b.distance)
            w.optionalString(b.address)
        }
    }

    static func decodeEvidence(_ r: inout ByteReader, device: String) throws(PersistenceError) -> Evidence? {
        do {
            switch try r.u8() {
            case 0:
                return nil
            case 1:
                return .fix(FixSnapshot(timestamp: try r.timestamp(), latitude: try r.double(), longitude: try r.double(),
                                        horizontalAccuracy: try r.optionalDouble()))
            case 2:
                let t = try r.timestamp()
                let kind = try r.u8(), a = try r.u64(), b = try r.u64(), c = try r.u64()
                let identity: BeaconIdentity
                switch kind {
                case 0: identity = .iBeacon(uuid: UUID128(high: a, low: b), major: UInt16(truncatingIfNeeded: c >> 16), minor: UInt16(truncatingIfNeeded: c))
                case 1: identity = .altBeacon(id1: UUID128(high: a, low: b), id2: UInt16(truncatingIfNeeded: c >> 16), id3: UInt16(truncatingIfNeeded: c))
                case 2: identity = .eddystoneUID(namespace: EddystoneNamespace(high: UInt16(truncatingIfNeeded: a), low: b), instance: EddystoneInstance(value: c))
                default: throw PersistenceError(device: device, reason: "unknown beacon kind \(kind)")
                }
                let rssi: Int? = try r.u8() == 0 ? nil : Int(truncatingIfNeeded: try r.i64())
                let proximityIndex = Int(try r.u8())
                guard proximityIndex < Proximity.allCases.count else { throw PersistenceError(device: device, reason: "unknown proximity") }
                return .beacon(BeaconSnapshot(timestamp: t, identity: identity, rssi: rssi, proximity: Proximity.allCases[proximityIndex],
                                              distance: try r.optionalDouble(), address: try r.optionalString()))
            case let k:
                throw PersistenceError(device: device, reason: "unknown evidence kind \(k)")
            }
        } catch let e as PersistenceError {
            throw e
        } catch {
            throw PersistenceError(device: device, reason: "\(error)")
        }
    }

    /// Pending requests with their persistent numbers, in add (revision) order: what a checkpoint stores and
    /// restores in this order.
    public var pendingRequestStates: [(request: NotificationRequest, state: RequestState)] {
        core.slotByIdentifier.keys.compactMap { id in
            guard let r = core.request(id), let s = state(ofRequest: id) else { return nil }
            return (r, s)
        }.sorted { $0.state.revision < $1.state.revision }
    }
}
