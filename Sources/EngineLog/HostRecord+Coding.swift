import Journal
import TriggerEngine

extension HostRecord {
    enum Kind: UInt8 {
        case requests = 1, remove, removeAll, fixes, sightings, clock, observerStarted, observerListening, group
    }

    /// Whether records of this kind are a count then that many self-contained items (fixes, sightings): two such
    /// payloads of one kind join into one by adding the counts and appending the items.
    public static func isItemBatch(kind: UInt8) -> Bool {
        kind == Kind.fixes.rawValue || kind == Kind.sightings.rawValue
    }

    /// The journal record, encoded through `w` (cleared first; the host reuses one writer).
    public func journalRecord(using w: inout ByteWriter) -> JournalRecord {
        w.bytes.removeAll(keepingCapacity: true)
        let kind: Kind
        switch input {
        case .requests(let json):
            kind = .requests
            w.string(json)
        case .remove(let ids):
            kind = .remove
            w.u32(UInt32(ids.count))
            for id in ids { w.string(id) }
        case .removeAll:
            kind = .removeAll
        case .fixes(let fixes):
            kind = .fixes
            w.u32(UInt32(fixes.count))
            Self.encode(fixes, into: &w)
        case .sightings(let sightings):
            kind = .sightings
            w.u32(UInt32(sightings.count))
            for s in sightings { Self.encode(s, into: &w) }
        case .clock(let t):
            kind = .clock
            w.timestamp(t)
        case .observerStarted(let device, let at):
            kind = .observerStarted
            w.string(device)
            w.timestamp(at)
        case .observerListening(let device, let at):
            kind = .observerListening
            w.string(device)
            w.timestamp(at)
        case .group(let name, let devices):
            kind = .group
            w.string(name)
            if let devices {
                w.u8(1)
                w.u32(UInt32(devices.count))
                for d in devices { w.string(d) }
            } else {
                w.u8(0)
            }
        }
        w.u32(UInt32(notifications.count))
        for n in notifications {
            w.string(n.deliveryId)
            w.string(n.identifier)
            w.string(n.device)
            w.timestamp(n.firedAt)
            w.string(n.json)
        }
        return JournalRecord(kind: kind.rawValue, payload: w.bytes)
    }

    /// Decodes a journal record written by `journalRecord(using:)`.
    public init(_ record: JournalRecord, position: UInt64) throws(HostRecordError) {
        guard let kind = Kind(rawValue: record.kind) else {
            throw HostRecordError(position: position, reason: "unknown record kind \(record.kind)")
        }
        var r = ByteReader(record.payload)
        do {
            switch kind {
            case .requests: input = .requests(json: try r.string())
            case .remove: input = .remove(identifiers: try (0..<Int(try r.u32())).map { _ in try r.string() })
            case .removeAll: input = .removeAll
            case .fixes:
                let n = Int(try r.u32())
                guard n <= r.remaining else { throw ByteReader.Truncated(offset: r.offset, wanted: n) }
                var fixes: [LocationFix] = []
                fixes.reserveCapacity(n)
                for _ in 0..<n { fixes.append(try Self.decodeFix(&r)) }
                input = .fixes(fixes)
            case .sightings:
                let n = Int(try r.u32())
                guard n <= r.remaining else { throw ByteReader.Truncated(offset: r.offset, wanted: n) }
                var sightings: [BeaconSighting] = []
                sightings.reserveCapacity(n)
                for _ in 0..<n { sightings.append(try Self.decodeSighting(&r)) }
                input = .sightings(sightings)
            case .clock: input = .clock(try r.timestamp())
            case .observerStarted: input = .observerStarted(device: try r.string(), at: try r.timestamp())
            case .observerListening: input = .observerListening(device: try r.string(), at: try r.timestamp())
            case .group:
                let name = try r.string()
                if try r.u8() == 1 {
                    let n = Int(try r.u32())
                    guard n <= r.remaining else { throw ByteReader.Truncated(offset: r.offset, wanted: n) }
                    input = .group(name: name, devices: try (0..<n).map { _ in try r.string() })
                } else {
                    input = .group(name: name, devices: nil)
                }
            }
            let n = Int(try r.u32())
            guard n <= r.remaining else { throw ByteReader.Truncated(offset: r.offset, wanted: n) }
            notifications = []
            notifications.reserveCapacity(n)
            for _ in 0..<n {
                notifications.append(RecordedNotification(deliveryId: try r.string(), identifier: try r.string(), device: try r.string(),
                                                          firedAt: try r.timestamp(), json: try r.string()))
            }
            guard r.isAtEnd else { throw HostRecordError(position: position, reason: "\(r.remaining) bytes after the record's end") }
        } catch let e as HostRecordError {
            throw e
        } catch {
            throw HostRecordError(position: position, reason: "\(kind) record \(error)")
        }
    }

    /// Presence bits of a fix's optional fields.
    private static let hasAccuracy: UInt8 = 1, hasAltitude: UInt8 = 2, hasSpeed: UInt8 = 4, hasCourse: UInt8 = 8

    /// A batch of fixes, each as `decodeFix` reads it: the device, the time, latitude and longitude, the presence
    /// bits, the optionals present. Through one bounded run of raw stores: byte by byte, with a capacity check per
    /// byte, a batch of 1,000 took the journal writer's thread ~50 µs.
    static func encode(_ fixes: [LocationFix], into w: inout ByteWriter) {
        // Per fix at most: the device's length and bytes, the time, two coordinates, the flags, four optionals.
        var bound = 0
        for f in fixes { bound += 4 + f.device.utf8.count + 8 + 16 + 1 + 32 }
        w.appending(upTo: bound) { c in
            for f in fixes {
                c.string(f.device)
                c.timestamp(f.timestamp)
                c.double(f.latitude)
                c.double(f.longitude)
                var flags: UInt8 = 0
                if f.horizontalAccuracy != nil { flags |= hasAccuracy }
                if f.altitude != nil { flags |= hasAltitude }
                if f.speed != nil { flags |= hasSpeed }
                if f.course != nil { flags |= hasCourse }
                c.u8(flags)
                if let v = f.horizontalAccuracy { c.double(v) }
                if let v = f.altitude { c.double(v) }
                if let v = f.speed { c.double(v) }
                if let v = f.course { c.double(v) }
            }
        }
    }

    static func decodeFix(_ r: inout ByteReader) throws(ByteReader.Truncated) -> LocationFix {
        var f = LocationFix(device: try r.string(), timestamp: try r.timestamp(), latitude: try r.double(), longitude: try r.double())
        let flags = try r.u8()
        if flags & hasAccuracy != 0 { f.horizontalAccuracy = try r.double() }
        if flags & hasAltitude != 0 { f.altitude = try r.double() }
        if flags & hasSpeed != 0 { f.speed = try r.double() }
        if flags & hasCourse != 0 { f.course = try r.double() }
        return f
    }

    static func encode(_ s: BeaconSighting, into w: inout ByteWriter) {
        w.string(s.device)
        w.timestamp(s.timestamp)
        switch s.identity {
        case nil: w.u8(0)
        case let .iBeacon(uuid, major, minor): w.u8(1); w.u64(uuid.high); w.u64(uuid.low); w.u32(UInt32(major) << 16 | UInt32(minor))
        case let .altBeacon(id1, id2, id3): w.u8(2); w.u64(id1.high); w.u64(id1.low); w.u32(UInt32(id2) << 16 | UInt32(id3))
        case let .eddystoneUID(namespace, instance): w.u8(3); w.u64(UInt64(namespace.high)); w.u64(namespace.low); w.u64(instance.value)
        }
        optionalInt(s.rssi, &w)
        optionalInt(s.txPower, &w)
        w.optionalString(s.address)
        if let t = s.telemetry {
            w.u8(1)
            w.optionalString(t.url)
            optionalInt(t.batteryMilliVolts, &w)
            w.optionalDouble(t.temperatureCelsius)
            optionalInt(t.advertisementCount.map(Int.init), &w)
            w.optionalDouble(t.uptimeSeconds)
            w.optionalString(t.ephemeralId)
        } else {
            w.u8(0)
        }
        w.u8(UInt8(Proximity.allCases.firstIndex(of: s.proximity) ?? 3))
        w.optionalDouble(s.distance)
    }

    static func decodeSighting(_ r: inout ByteReader) throws(ByteReader.Truncated) -> BeaconSighting {
        let device = try r.string(), timestamp = try r.timestamp()
        let identity: BeaconIdentity?
        switch try r.u8() {
        case 1:
            let h = try r.u64(), l = try r.u64(), v = try r.u32()
            identity = .iBeacon(uuid: UUID128(high: h, low: l), major: UInt16(v >> 16), minor: UInt16(v & 0xFFFF))
        case 2:
            let h = try r.u64(), l = try r.u64(), v = try r.u32()
            identity = .altBeacon(id1: UUID128(high: h, low: l), id2: UInt16(v >> 16), id3: UInt16(v & 0xFFFF))
        case 3:
            let h = try r.u64(), l = try r.u64(), i = try r.u64()
            identity = .eddystoneUID(namespace: EddystoneNamespace(high: UInt16(truncatingIfNeeded: h), low: l), instance: EddystoneInstance(value: i))
        default:
            identity = nil
        }
        let rssi = try optionalInt(&r), txPower = try optionalInt(&r), address = try r.optionalString()
        var telemetry: BeaconTelemetry?
        if try r.u8() != 0 {
            telemetry = BeaconTelemetry(url: try r.optionalString(), batteryMilliVolts: try optionalInt(&r),
                                        temperatureCelsius: try r.optionalDouble(),
                                        advertisementCount: try optionalInt(&r).map { UInt32(truncatingIfNeeded: $0) },
                                        uptimeSeconds: try r.optionalDouble(), ephemeralId: try r.optionalString())
        }
        let proximity = Proximity.allCases[min(Int(try r.u8()), Proximity.allCases.count - 1)]
        return BeaconSighting(device: device, timestamp: timestamp, identity: identity, rssi: rssi, txPower: txPower,
                              address: address, telemetry: telemetry, proximity: proximity, distance: try r.optionalDouble())
    }

    private static func optionalInt(_ v: Int?, _ w: inout ByteWriter) {
        if let v { w.u8(1); w.i64(Int64(v)) } else { w.u8(0) }
    }

    private static func optionalInt(_ r: inout ByteReader) throws(ByteReader.Truncated) -> Int? {
        try r.u8() == 0 ? nil : Int(truncatingIfNeeded: try r.i64())
    }
}
