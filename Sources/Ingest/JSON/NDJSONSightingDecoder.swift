import JSON
import TriggerEngine

/// Beacon sightings as NDJSON, one object per line: `device` (the observer), `timestamp` (RFC 3339 or Unix
/// seconds/milliseconds), `rssi`, `txPower`, optional `address`, and the identity, either at the top level or in an
/// `identity` object: iBeacon `uuid`/`major`/`minor`; AltBeacon `"type": "altbeacon"` with `id1`/`id2`/`id3`;
/// Eddystone-UID `namespace`/`instance` (hex). Proximity is left `.unknown`: the Beacons module estimates it.
/// Sightings arrive at radio rates, far below fix replay rates, so every line goes through `JSONParser`.
public struct NDJSONSightingDecoder: StreamingRecordDecoder, Sendable {
    public let source: String
    public let defaultDevice: String?
    private var lines = LineSplitter()

    public init(source: String, defaultDevice: String? = nil) {
        self.source = source
        self.defaultDevice = defaultDevice
    }

    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onRecord: (BeaconSighting) -> Void, onError: (IngestError) -> Void
    ) {
        var splitter = LineSplitter()
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        splitter.feed(chunk) { decodeLine($0, onRecord: onRecord, onError: onError) }
    }

    public mutating func finish(onRecord: (BeaconSighting) -> Void, onError: (IngestError) -> Void) {
        var splitter = LineSplitter()
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        splitter.finish { decodeLine($0, onRecord: onRecord, onError: onError) }
    }

    private func decodeLine(
        _ line: LineSplitter.Line, onRecord: (BeaconSighting) -> Void, onError: (IngestError) -> Void
    ) {
        if line.tooLong {
            onError(IngestError(source: source, line: line.number, offset: line.offset,
                                reason: "line longer than \(lines.maximumLength) bytes, skipped",
                                kind: IngestError.Kind.recordTooLong))
            return
        }
        if isBlank(line.bytes) { return }
        do throws(FieldProblem) {
            onRecord(try sighting(parseRecord(line.bytes)))
        } catch {
            onError(error.ingestError(source: source, line: line.number, offset: line.offset))
        }
    }

    func sighting(_ value: JSONValue) throws(FieldProblem) -> BeaconSighting {
        guard case .object = value else {
            throw FieldProblem(field: nil, reason: "expected a JSON object, found \(value.kindName)",
                               kind: IngestError.Kind.wrongType)
        }
        let rules = FixRules(names: .spec)
        let device = try FixFields.device(RawValue(FieldAliases.value(of: .device, in: value)), .device, rules, defaultDevice)
        if device.isEmpty { throw FieldProblem(field: "device", reason: FixRejection.missingDevice.description,
                                               kind: IngestError.Kind.missingDevice) }
        let timestamp = try FixFields.timestamp(RawValue(FieldAliases.value(of: .timestamp, in: value)), .timestamp, rules)
        var identitySource = value
        if let nested = value["identity"], !nested.isNull {
            guard case .object = nested else {
                throw FieldProblem.wrongType("identity", expected: "an object", found: RawValue(nested))
            }
            identitySource = nested
        }
        let identity = try Self.identity(identitySource)
        let rssi = try Self.integer(value["rssi"], "rssi", in: -127...20)
        let txPower = try Self.integer(value["txPower"], "txPower", in: -127...127)
        var address: String?
        if let a = value["address"], !a.isNull {
            guard let text = a.stringValue else { throw FieldProblem.wrongType("address", expected: "a string", found: RawValue(a)) }
            guard let normal = Self.bluetoothAddress(text) else {
                throw FieldProblem(field: "address", reason: "\"\(text.prefix(40))\" is not a Bluetooth address",
                                   kind: IngestError.Kind.invalidBeaconField)
            }
            address = normal
        }
        return BeaconSighting(device: device, timestamp: timestamp, identity: identity, rssi: rssi, txPower: txPower,
                              address: address, proximity: .unknown)
    }

    static func identity(_ o: JSONValue) throws(FieldProblem) -> BeaconIdentity {
        let type = o["type"]?.stringValue?.lowercased()
        if type == "altbeacon" {
            let id1 = try uuid(o["id1"] ?? o["uuid"], "id1")
            let id2 = try integer(o["id2"] ?? o["major"], "id2", in: 0...65535, required: true) ?? 0
            let id3 = try integer(o["id3"] ?? o["minor"], "id3", in: 0...65535, required: true) ?? 0
            return .altBeacon(id1: id1, id2: UInt16(id2), id3: UInt16(id3))
        }
        if o["namespace"] != nil || type == "eddystone-uid" || type == "eddystone" {
            let ns = try hexField(o["namespace"], "namespace", bytes: 10).flatMap { EddystoneNamespace(hex: $0) }
            let inst = try hexField(o["instance"], "instance", bytes: 6).flatMap { EddystoneInstance(hex: $0) }
            guard let ns, let inst else {
                throw FieldProblem(field: "namespace", reason: "Eddystone-UID needs namespace and instance",
                                   kind: IngestError.Kind.invalidIdentity)
            }
            return .eddystoneUID(namespace: ns, instance: inst)
        }
        if o["uuid"] != nil || type == "ibeacon" {
            let u = try uuid(o["uuid"], "uuid")
            let major = try integer(o["major"], "major", in: 0...65535, required: true) ?? 0
            let minor = try integer(o["minor"], "minor", in: 0...65535, required: true) ?? 0
            return .iBeacon(uuid: u, major: UInt16(major), minor: UInt16(minor))
        }
        throw FieldProblem(field: "identity",
                           reason: "no beacon identity (uuid/major/minor, altbeacon id1/id2/id3 or namespace/instance)",
                           kind: IngestError.Kind.invalidIdentity)
    }

    static func uuid(_ v: JSONValue?, _ field: String) throws(FieldProblem) -> UUID128 {
        guard let v, !v.isNull else { throw FieldProblem.missing(field) }
        guard let s = v.stringValue else { throw FieldProblem.wrongType(field, expected: "a string", found: RawValue(v)) }
        guard s.utf8.count <= 40, let u = UUID128(string: s) else {
            throw FieldProblem(field: field, reason: "\"\(s.prefix(40))\" is not a 128-bit UUID",
                               kind: IngestError.Kind.invalidIdentity)
        }
        return u
    }

    static func hexField(_ v: JSONValue?, _ field: String, bytes: Int) throws(FieldProblem) -> String? {
        guard let v, !v.isNull else { throw FieldProblem.missing(field) }
        guard let s = v.stringValue else { throw FieldProblem.wrongType(field, expected: "a string", found: RawValue(v)) }
        guard let b = hexBytes(s), b.count == bytes else {
            throw FieldProblem(field: field, reason: "\"\(s.prefix(40))\" is not \(bytes) bytes of hex",
                               kind: IngestError.Kind.invalidIdentity)
        }
        return s
    }

    static func integer(_ v: JSONValue?, _ field: String, in range: ClosedRange<Int>, required: Bool = false)
        throws(FieldProblem) -> Int?
    {
        guard let v, !v.isNull else {
            if required { throw FieldProblem.missing(field) }
            return nil
        }
        guard let d = v.doubleValue else { throw FieldProblem.wrongType(field, expected: "an integer", found: RawValue(v)) }
        guard d.isFinite, d == d.rounded(), d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
            let kind = field == "rssi" || field == "txPower" ? IngestError.Kind.invalidBeaconField
                : IngestError.Kind.invalidIdentity
            throw FieldProblem(field: field, reason: "\(field) must be an integer in \(range.lowerBound)...\(range.upperBound), found \(d)",
                               kind: kind)
        }
        return Int(d)
    }

    /// Six hex octets separated by `:` or `-`, returned in the upper-case colon form `BeaconSighting` uses.
    static func bluetoothAddress(_ s: String) -> String? {
        let u = Array(s.utf8)
        guard u.count == 17 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(17)
        for (k, c) in u.enumerated() {
            if k % 3 == 2 {
                guard c == 58 || c == 45 else { return nil }
                out.append(58)
            } else {
                guard (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102) else { return nil }
                out.append(c >= 97 ? c - 32 : c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
