import JSON

/// The engine-private text form of device and pair state (see `TriggerEngine+Persistence`).
///
/// A JSON object whose scalars are all strings: timestamps are Int64 microseconds (beyond a Double's exact range at
/// `distantPast`), doubles use Swift's round-tripping description (so NaN, "no fix yet", survives). Version 1.
struct PersistedDevice {
    var lastFixTime: Timestamp
    var lastFixFingerprint: UInt64
    var lastGeneration: UInt64
    var lastSightingTime: Timestamp
    var observingSince: Timestamp
    var lastArrival = Timestamp.distantPast
    var lastFiring = Timestamp.distantPast
    var firingOrdinal: UInt32 = 0

    init(_ d: DeviceRecord, _ o: ObserverRecord) {
        lastFixTime = d.lastFixTime
        lastFixFingerprint = d.lastFixFingerprint
        lastGeneration = d.lastGeneration
        lastSightingTime = o.lastSightingTime
        observingSince = o.observingSince
        lastArrival = o.lastArrival
        lastFiring = o.lastFiring
        firingOrdinal = o.firingOrdinal
    }

    /// Reads version 3, and version 2 (written before per-device time: no arrival, no firing ordinal).
    init?(text: String) {
        guard let f = PersistedFields(text: text), f.string("v") == "2" || f.string("v") == "3",
            let lastFixTime = f.timestamp("lastFixTime"),
            let lastFixFingerprint = f.string("lastFixFingerprint").flatMap({ UInt64($0) }),
            let lastGeneration = f.string("lastGeneration").flatMap({ UInt64($0) }),
            let lastSightingTime = f.timestamp("lastSightingTime"), let observingSince = f.timestamp("observingSince")
        else { return nil }
        self.lastFixTime = lastFixTime
        self.lastFixFingerprint = lastFixFingerprint
        self.lastGeneration = lastGeneration
        self.lastSightingTime = lastSightingTime
        self.observingSince = observingSince
        if f.string("v") == "3" {
            guard let lastArrival = f.timestamp("lastArrival"), let lastFiring = f.timestamp("lastFiring"),
                let firingOrdinal = f.string("firingOrdinal").flatMap({ UInt32($0) })
            else { return nil }
            self.lastArrival = lastArrival
            self.lastFiring = lastFiring
            self.firingOrdinal = firingOrdinal
        }
    }

    var text: String {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("v", "3")
        w.field("lastFixTime", String(lastFixTime.microseconds))
        w.field("lastFixFingerprint", String(lastFixFingerprint))
        w.field("lastGeneration", String(lastGeneration))
        w.field("lastSightingTime", String(lastSightingTime.microseconds))
        w.field("observingSince", String(observingSince.microseconds))
        w.field("lastArrival", String(lastArrival.microseconds))
        w.field("lastFiring", String(lastFiring.microseconds))
        w.field("firingOrdinal", String(firingOrdinal))
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func apply(to d: inout DeviceRecord, _ o: inout ObserverRecord) {
        d.lastFixTime = lastFixTime
        d.lastFixFingerprint = lastFixFingerprint
        d.lastGeneration = lastGeneration
        o.lastSightingTime = lastSightingTime
        o.observingSince = observingSince
        o.lastArrival = lastArrival
        o.lastFiring = lastFiring
        o.firingOrdinal = firingOrdinal
    }
}

/// One pair's persisted state, with the evidence a pending dwell or beacon exit will render.
struct PersistedPair {
    var phase: PairState.Phase
    var since: Timestamp
    var lastFired: Timestamp
    var dwellDeadline: Timestamp
    var lastMatch: Timestamp
    var evidence: Evidence?

    init(_ p: PairState) {
        phase = p.phase
        since = p.since
        lastFired = p.lastFired
        dwellDeadline = p.dwellDeadline
        lastMatch = p.lastMatch
        evidence = p.evidence
    }

    init?(text: String) {
        guard let f = PersistedFields(text: text), f.string("v") == "1",
            let phase = f.string("phase").flatMap({ UInt8($0) }).flatMap({ PairState.Phase(rawValue: $0) }),
            let since = f.timestamp("since"), let lastFired = f.timestamp("lastFired"),
            let dwellDeadline = f.timestamp("dwellDeadline"), let lastMatch = f.timestamp("lastMatch")
        else { return nil }
        self.phase = phase
        self.since = since
        self.lastFired = lastFired
        self.dwellDeadline = dwellDeadline
        self.lastMatch = lastMatch
        switch f.string("evidence") {
        case nil:
            evidence = nil
        case "fix":
            guard let t = f.timestamp("fix.timestamp"), let lat = f.double("fix.latitude"), let lon = f.double("fix.longitude")
            else { return nil }
            evidence = .fix(FixSnapshot(timestamp: t, latitude: lat, longitude: lon, horizontalAccuracy: f.double("fix.horizontalAccuracy")))
        case "beacon":
            guard let t = f.timestamp("beacon.timestamp"), let identity = Self.identity(f),
                let proximity = f.string("beacon.proximity").flatMap({ Proximity(rawValue: $0) })
            else { return nil }
            evidence = .beacon(BeaconSnapshot(timestamp: t, identity: identity, rssi: f.string("beacon.rssi").flatMap { Int($0) },
                                              proximity: proximity, distance: f.double("beacon.distance"),
                                              address: f.string("beacon.address")))
        default:
            return nil
        }
    }

    var text: String {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("v", "1")
        w.field("phase", String(phase.rawValue))
        w.field("since", String(since.microseconds))
        w.field("lastFired", String(lastFired.microseconds))
        w.field("dwellDeadline", String(dwellDeadline.microseconds))
        w.field("lastMatch", String(lastMatch.microseconds))
        switch evidence {
        case nil:
            break
        case .fix(let fix):
            w.field("evidence", "fix")
            w.field("fix.timestamp", String(fix.timestamp.microseconds))
            w.field("fix.latitude", fix.latitude.description)
            w.field("fix.longitude", fix.longitude.description)
            if let a = fix.horizontalAccuracy { w.field("fix.horizontalAccuracy", a.description) }
        case .beacon(let b):
            w.field("evidence", "beacon")
            w.field("beacon.timestamp", String(b.timestamp.microseconds))
            switch b.identity {
            case let .iBeacon(uuid, major, minor):
                w.field("beacon.kind", "ibeacon"); w.field("beacon.a", uuid.description)
                w.field("beacon.b", String(major)); w.field("beacon.c", String(minor))
            case let .altBeacon(id1, id2, id3):
                w.field("beacon.kind", "altbeacon"); w.field("beacon.a", id1.description)
                w.field("beacon.b", String(id2)); w.field("beacon.c", String(id3))
            case let .eddystoneUID(namespace, instance):
                w.field("beacon.kind", "eddystone-uid"); w.field("beacon.a", namespace.description)
                w.field("beacon.b", instance.description)
            }
            if let rssi = b.rssi { w.field("beacon.rssi", String(rssi)) }
            w.field("beacon.proximity", b.proximity.rawValue)
            if let d = b.distance { w.field("beacon.distance", d.description) }
            if let a = b.address { w.field("beacon.address", a) }
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func pairState(slot: Int32, slotGeneration: UInt32) -> PairState {
        var p = PairState(slot: slot, slotGeneration: slotGeneration, phase: phase, since: since)
        p.lastFired = lastFired
        p.dwellDeadline = dwellDeadline
        p.lastMatch = lastMatch
        p.evidence = evidence
        return p
    }

    private static func identity(_ f: PersistedFields) -> BeaconIdentity? {
        guard let a = f.string("beacon.a"), let b = f.string("beacon.b") else { return nil }
        switch f.string("beacon.kind") {
        case "ibeacon":
            guard let u = UUID128(string: a), let major = UInt16(b), let minor = f.string("beacon.c").flatMap({ UInt16($0) })
            else { return nil }
            return .iBeacon(uuid: u, major: major, minor: minor)
        case "altbeacon":
            guard let u = UUID128(string: a), let id2 = UInt16(b), let id3 = f.string("beacon.c").flatMap({ UInt16($0) })
            else { return nil }
            return .altBeacon(id1: u, id2: id2, id3: id3)
        case "eddystone-uid":
            guard let ns = EddystoneNamespace(hex: a), let instance = EddystoneInstance(hex: b) else { return nil }
            return .eddystoneUID(namespace: ns, instance: instance)
        default:
            return nil
        }
    }
}

/// A flat JSON object of string values, as written above.
struct PersistedFields {
    private var values: [String: String] = [:]

    init?(text: String) {
        guard let object = (try? JSONParser.parse(text))?.objectValue else { return nil }
        for (k, v) in object {
            guard let s = v.stringValue else { return nil }
            values[k] = s
        }
    }

    func string(_ key: String) -> String? { values[key] }
    func double(_ key: String) -> Double? { values[key].flatMap { Double($0) } }
    func timestamp(_ key: String) -> Timestamp? { values[key].flatMap { Int64($0) }.map { Timestamp(microseconds: $0) } }
}
