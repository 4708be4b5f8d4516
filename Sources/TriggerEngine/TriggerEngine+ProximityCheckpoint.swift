import Geometry

/// The proximity state in a checkpoint (version 3): groups, the devices' positions as decided, the pairs, the fixes
/// still waiting for the watermark and how far it has decided. Pairs name their request by revision.
extension TriggerEngine {
    func encodeProximity(into w: inout ByteWriter) {
        let p = core.proximity
        w.u32(UInt32(p.groups.count))
        for (name, members) in p.groups.sorted(by: { $0.key < $1.key }) {
            w.string(name)
            w.u32(UInt32(members.count))
            for m in members.sorted() { w.string(m) }
        }
        w.timestamp(p.released)
        w.u32(UInt32(p.participants.count))
        for q in p.participants {
            w.string(q.name)
            w.timestamp(q.time)
            w.double(q.latitude)
            w.double(q.longitude)
            w.optionalDouble(q.accuracy)
            w.u32(q.sequence)
            w.timestamp(q.lastFiring)
            w.u32(q.firingOrdinal)
        }
        let pairs = p.pairs.filter { core.slotGenerations[Int($0.key.slot)] == $0.value.slotGeneration && core.compiled[Int($0.key.slot)] != nil }
        w.u32(UInt32(pairs.count))
        for (key, pair) in pairs {
            w.u64(core.compiled[Int(key.slot)]!.revision)
            w.u32(UInt32(key.subject))
            w.u32(UInt32(key.target))
            w.u8(pair.phase.rawValue)
            w.timestamp(pair.since)
            w.timestamp(pair.lastFired)
            w.timestamp(pair.dwellDeadline)
        }
        w.u32(UInt32(p.pending.count))
        for e in p.pending.unordered.sorted() {
            w.timestamp(e.time)
            w.u32(UInt32(e.participant))
            w.u32(e.sequence)
            w.double(e.latitude)
            w.double(e.longitude)
            w.optionalDouble(e.accuracy)
        }
    }

    func restoreProximity(from r: inout ByteReader, slotByRevision: [UInt64: Int32]) throws(PersistenceError) {
        do {
            var p = ProximityState()
            p.requestCount = core.proximity.requestCount
            for _ in 0..<Int(try r.u32()) {
                let name = try r.string()
                var members = Set<String>()
                for _ in 0..<Int(try r.u32()) { members.insert(try r.string()) }
                p.groups[name] = members
            }
            p.released = try r.timestamp()
            let count = Int(try r.u32())
            for k in 0..<count {
                let name = try r.string()
                var q = ProximityState.Participant(name: name, nameHash: DeviceTable.hash(name))
                q.time = try r.timestamp()
                q.latitude = try r.double()
                q.longitude = try r.double()
                q.accuracy = try r.optionalDouble()
                q.sequence = try r.u32()
                q.lastFiring = try r.timestamp()
                q.firingOrdinal = try r.u32()
                p.participants.append(q)
                p.hot.append(.init(ecef: Geodesy.ECEF(Coordinate(latitude: q.latitude, longitude: q.longitude)), time: q.time,
                                   accuracy: q.accuracy ?? 0))
                p.participantIndex[name] = Int32(k)
            }
            for _ in 0..<Int(try r.u32()) {
                let revision = try r.u64()
                let subject = Int32(try r.u32()), target = Int32(try r.u32())
                guard let phase = PairState.Phase(rawValue: try r.u8()) else {
                    throw PersistenceError(device: "", reason: "unknown proximity pair phase")
                }
                let since = try r.timestamp(), lastFired = try r.timestamp(), dwellDeadline = try r.timestamp()
                guard Int(subject) < count, Int(target) < count else {
                    throw PersistenceError(device: "", reason: "a proximity pair names device \(max(subject, target)) of \(count)")
                }
                guard let slot = slotByRevision[revision] else { continue }
                let key = ProximityState.PairKey(slot: slot, subject: subject, target: target)
                p.pairs[key] = .init(slotGeneration: core.slotGenerations[Int(slot)], phase: phase, since: since,
                                     lastFired: lastFired, dwellDeadline: dwellDeadline)
                p.participants[Int(subject)].pairs.append(.init(key: key, phase: phase))
                p.participants[Int(target)].pairs.append(.init(key: key, phase: phase))
                if phase == .entering {
                    p.deadlines.insert(.init(time: dwellDeadline, key: key, subjectHash: p.participants[Int(subject)].nameHash,
                                             targetHash: p.participants[Int(target)].nameHash))
                }
            }
            for _ in 0..<Int(try r.u32()) {
                let time = try r.timestamp()
                let participant = Int32(try r.u32())
                guard Int(participant) < count else { throw PersistenceError(device: "", reason: "a queued proximity fix names device \(participant) of \(count)") }
                p.pending.insert(.init(time: time, nameHash: p.participants[Int(participant)].nameHash, participant: participant,
                                       sequence: try r.u32(), latitude: try r.double(), longitude: try r.double(),
                                       accuracy: try r.optionalDouble()))
            }
            core.proximity = p
            core.rebuildProximityRules()
        } catch let e as PersistenceError {
            throw e
        } catch {
            throw PersistenceError(device: "", reason: "checkpoint proximity \(error)")
        }
    }
}
