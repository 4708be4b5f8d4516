#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// Questions about the present answered from memory (the service's device listing, region and nearby queries). Each
/// walks the device records once at most; none allocates per device it skips.
extension EngineCore {
    /// Live devices in record order from record `start`; `next` is where the following page starts (nil at the end).
    /// Record order is stable while a device lives; a device created during a listing may land in a freed record
    /// before the cursor, so a paged listing is a snapshot of the devices alive throughout it.
    func deviceStatuses(from start: Int, limit: Int) -> (statuses: [DeviceStatus], next: Int?) {
        var out: [DeviceStatus] = []
        var d = max(0, start)
        while d < devices.count, out.count < limit {
            if !devices[d].name.isEmpty { out.append(status(at: d)) }
            d += 1
        }
        while d < devices.count, devices[d].name.isEmpty { d += 1 }
        return (out, d < devices.count ? d : nil)
    }

    /// Devices inside (or dwelling into) every request whose region has this id, by device then identifier; nil
    /// when no pending request has that region. Reads only the devices that entered (`occupantCandidates`) when
    /// the configuration tracks them; otherwise every device record, once.
    func occupants(ofRegion regionID: String) -> [RegionOccupant]? {
        guard let slots = slotsByRegion[regionID] else { return nil }
        var out: [RegionOccupant] = []
        func note(device d: Int32, slot: Int32, identifier: String) {
            guard isOccupant(device: d, slot: slot), let k = pairIndex(device: d, slot: slot) else { return }
            let p = devices[Int(d)].pairs[k]
            out.append(RegionOccupant(device: devices[Int(d)].name, identifier: identifier,
                                      phase: p.phase == .inside ? "inside" : "entering", since: p.since))
        }
        let requests = slots.compactMap { slot in compiled[Int(slot)].map { (slot: slot, identifier: $0.request.identifier) } }
        if configuration.tracksOccupants {
            for r in requests {
                var seen = Set<Int32>()
                for d in occupantCandidates[Int(r.slot)] where seen.insert(d).inserted { note(device: d, slot: r.slot, identifier: r.identifier) }
            }
        } else {
            for d in devices.indices where !devices[d].pairs.isEmpty {
                for r in requests { note(device: Int32(d), slot: r.slot, identifier: r.identifier) }
            }
        }
        out.sort { ($0.device, $0.identifier) < ($1.device, $1.identifier) }
        return out
    }

    /// Devices whose newest fix is within `radius` metres of the point, nearest first, at most `limit`.
    func nearby(latitude: Double, longitude: Double, radius: Double, limit: Int) -> [NearbyDevice] {
        // A box in degrees that surely holds the circle rejects most devices before any trigonometry.
        let latitudeSpan = radius / Geodesy.minimumMeridionalRadius * 180 / .pi
        let cosine = cos(min(89.9, abs(latitude) + latitudeSpan) * .pi / 180)
        let longitudeSpan = cosine > 0 ? latitudeSpan / cosine : 360
        let wrap = longitude - longitudeSpan < -180 || longitude + longitudeSpan > 180 || longitudeSpan >= 180
        let center = Geodesy.ECEF(Coordinate(latitude: latitude, longitude: longitude))
        let chordLimit = Geodesy.chord(arc: radius)
        var out: [NearbyDevice] = []
        for d in observers.indices {
            let o = observers[d]
            guard !o.lastLatitude.isNaN, abs(o.lastLatitude - latitude) <= latitudeSpan else { continue }
            if !wrap, abs(o.lastLongitude - longitude) > longitudeSpan { continue }
            let c2 = Geodesy.ECEF(Coordinate(latitude: o.lastLatitude, longitude: o.lastLongitude)).chordSquared(to: center)
            guard c2 <= chordLimit * chordLimit, !devices[d].name.isEmpty, let position = o.lastPosition else { continue }
            out.append(NearbyDevice(device: devices[d].name, distance: Geodesy.arc(chord: c2.squareRoot()),
                                    position: position, lastFix: devices[d].lastFixTime))
        }
        out.sort { ($0.distance, $0.device) < ($1.distance, $1.device) }
        if out.count > limit { out.removeSubrange(limit...) }
        return out
    }
}

extension EngineCore {
    static let minimumOccupantCompaction = 64

    /// Notes that device `d` became inside or entering `slot`. The list is compacted (stale and repeated entries
    /// dropped) once it doubles its live length, so it stays proportional to the occupants, in amortised O(1).
    /// Nothing when the configuration keeps no lists (`tracksOccupants`): the list is then never touched.
    mutating func noteOccupant(device d: Int32, slot: Int32) {
        guard configuration.tracksOccupants else { return }
        let s = Int(slot)
        occupantCandidates[s].append(d)
        guard occupantCandidates[s].count >= occupantCompactAt[s] else { return }
        var live = occupantCandidates[s].filter { isOccupant(device: $0, slot: slot) }
        live.sort()
        var unique: [Int32] = []
        unique.reserveCapacity(live.count)
        for x in live where unique.last != x { unique.append(x) }
        occupantCandidates[s] = unique
        occupantCompactAt[s] = max(Self.minimumOccupantCompaction, 2 * unique.count)
    }

    /// Whether device record `d` is alive and inside or entering `slot`'s current request.
    func isOccupant(device d: Int32, slot: Int32) -> Bool {
        guard Int(d) < devices.count, !devices[Int(d)].name.isEmpty, let k = pairIndex(device: d, slot: slot) else { return false }
        let phase = devices[Int(d)].pairs[k].phase
        return phase == .inside || phase == .entering
    }
}
