import JSON
import Geometry

/// SPEC §1 requests read straight from the JSON bytes, without the `JSONValue` tree: member names matched as bytes,
/// each value read into the field it belongs to. Loading a large region file through the tree spent its time in
/// the tree (allocating, retaining and releasing its nodes) and in finding each field by name in it.
///
/// It succeeds only where `RequestDecoder` would give the same requests, and gives up (nil) on anything else: an
/// invalid request, JSON the parser refuses, GeoJSON, or a rare form it does not read (such as a member name with
/// an escape). The caller then reads the whole document through the tree, so every error, and which error comes
/// first, is the tree's. A request's fields may come in any order, so each object is read whole before it is
/// checked, with a bit per field to refuse a repeated name as the parser does.
struct RequestByteDecoder {
    var reader: JSONStreamReader

    /// The requests in `bytes` (an array of request objects, or one), or nil where the tree must read them.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [NotificationRequest]? {
        var texts: [String]? = nil
        return decode(bytes, texts: &texts)?.requests
    }

    /// `decode`, and when `texts` is not nil, each request's JSON text (its bytes without whitespace) appended to it.
    static func decode(_ bytes: UnsafeRawBufferPointer, texts: inout [String]?) -> (requests: [NotificationRequest], isArray: Bool)? {
        var d = RequestByteDecoder(reader: JSONStreamReader(bytes))
        var out: [NotificationRequest] = []
        let keep = texts != nil
        let isArray = d.reader.consume(UInt8(ascii: "["))
        if isArray {
            // A guess from the size (a small circle request is about 230 bytes): the array grows less often.
            out.reserveCapacity(min(bytes.count / 256, 1 << 20))
            if keep { texts!.reserveCapacity(min(bytes.count / 256, 1 << 20)) }
            if !d.reader.consume(UInt8(ascii: "]")) {
                while true {
                    let start = d.reader.valueStart()
                    guard let request = d.request(depth: 1) else { return nil }
                    out.append(request)
                    if keep { texts!.append(d.reader.compactText(start..<d.reader.offset)) }
                    guard let more = d.reader.next(orClose: UInt8(ascii: "]")) else { return nil }
                    if !more { break }
                }
            }
        } else {
            let start = d.reader.valueStart()
            guard let request = d.request(depth: 0) else { return nil }
            out.append(request)
            if keep { texts!.append(d.reader.compactText(start..<d.reader.offset)) }
        }
        guard d.reader.atEnd() else { return nil }
        return (out, isArray)
    }

    /// The one request object in `bytes`, or nil where the tree must read it.
    static func decodeObject(_ bytes: UnsafeRawBufferPointer) -> NotificationRequest? {
        var d = RequestByteDecoder(reader: JSONStreamReader(bytes))
        guard d.reader.peek() == UInt8(ascii: "{"), let request = d.request(depth: 0), d.reader.atEnd() else { return nil }
        return request
    }

    /// Calls `member` with each member name of the object that comes next (the reader then at its value) until the
    /// object closes; false when `member` returns false or the text is not an object.
    @inline(__always)
    mutating func members(_ member: (inout RequestByteDecoder, UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard reader.consume(UInt8(ascii: "{")) else { return false }
        if reader.consume(UInt8(ascii: "}")) { return true }
        while true {
            guard let name = reader.memberName(), member(&self, name) else { return false }
            guard let more = reader.next(orClose: UInt8(ascii: "}")) else { return false }
            if !more { return true }
        }
    }

    /// Marks field `bit` as seen; false when it was already (a repeated name, which the parser refuses).
    @inline(__always) static func first(_ seen: inout UInt32, _ bit: UInt32) -> Bool {
        guard seen & bit == 0 else { return false }
        seen |= bit
        return true
    }

    /// A string or null (`.some(nil)`); nil for anything else.
    @inline(__always) mutating func optionalString() -> String?? {
        if reader.null() { return .some(nil) }
        guard let s = reader.string() else { return nil }
        return .some(s)
    }

    /// A finite number or null (`.some(nil)`), as `FieldReader.number` takes it; nil for anything else.
    @inline(__always) mutating func optionalNumber() -> Double?? {
        if reader.null() { return .some(nil) }
        guard let d = reader.number(), d.isFinite else { return nil }
        return .some(d)
    }

    /// A boolean or null (`.some(nil)`); nil for anything else.
    @inline(__always) mutating func optionalBool() -> Bool?? {
        if reader.null() { return .some(nil) }
        guard let b = reader.bool() else { return nil }
        return .some(b)
    }

    /// A request object whose braces are at nesting `depth`.
    mutating func request(depth: Int) -> NotificationRequest? {
        var identifier: String?
        var content = NotificationContent()
        var trigger: LocationTrigger?
        var seen: UInt32 = 0
        let read = members { d, name in
            if name.isName("identifier") {
                guard Self.first(&seen, 1), let s = d.reader.string(), !s.isEmpty else { return false }
                identifier = s
            } else if name.isName("content") {
                guard Self.first(&seen, 2) else { return false }
                if !d.reader.null() {
                    guard let c = d.content(depth: depth + 1) else { return false }
                    content = c
                }
            } else if name.isName("trigger") {
                guard Self.first(&seen, 4), let t = d.trigger(depth: depth + 1) else { return false }
                trigger = t
            } else {
                return false
            }
            return true
        }
        guard read, let identifier, let trigger else { return nil }
        let request = NotificationRequest(identifier: identifier, content: content, trigger: trigger)
        let c = content
        if !(ContentTemplate.isPlainlyValid(c.title) && ContentTemplate.isPlainlyValid(c.body)
            && ContentTemplate.isPlainlyValid(c.subtitle) && ContentTemplate.isPlainlyValid(c.threadIdentifier ?? "")
            && ContentTemplate.isPlainlyValid(c.summaryArgument ?? "")) {
            do { try RequestDecoder.checkTemplates(request) } catch { return nil }
        }
        return request
    }

    mutating func content(depth: Int) -> NotificationContent? {
        var c = NotificationContent()
        var seen: UInt32 = 0
        let read = members { d, name in
            if name.isName("title") {
                guard Self.first(&seen, 1), let s = d.optionalString() else { return false }
                c.title = s ?? ""
            } else if name.isName("body") {
                guard Self.first(&seen, 2), let s = d.optionalString() else { return false }
                c.body = s ?? ""
            } else if name.isName("subtitle") {
                guard Self.first(&seen, 4), let s = d.optionalString() else { return false }
                c.subtitle = s ?? ""
            } else if name.isName("badge") {
                guard Self.first(&seen, 8), let n = d.optionalNumber() else { return false }
                if let badge = n {
                    guard badge == badge.rounded(), badge >= 0, badge <= Double(Int32.max) else { return false }
                    c.badge = Int(badge)
                }
            } else if name.isName("sound") {
                guard Self.first(&seen, 16), let s = d.optionalString() else { return false }
                c.sound = s
            } else if name.isName("categoryIdentifier") {
                guard Self.first(&seen, 32), let s = d.optionalString() else { return false }
                c.categoryIdentifier = s ?? ""
            } else if name.isName("threadIdentifier") {
                guard Self.first(&seen, 64), let s = d.optionalString() else { return false }
                c.threadIdentifier = s
            } else if name.isName("summaryArgument") {
                guard Self.first(&seen, 128), let s = d.optionalString() else { return false }
                c.summaryArgument = s
            } else if name.isName("userInfo") {
                guard Self.first(&seen, 256) else { return false }
                if !d.reader.null() {
                    guard let info = d.reader.value(depth: depth + 1), info.objectValue != nil else { return false }
                    c.userInfo = info
                }
            } else {
                return false
            }
            return true
        }
        return read ? c : nil
    }

    mutating func trigger(depth: Int) -> LocationTrigger? {
        var region: Region?
        var notifyOnEntry: Bool?, notifyOnExit: Bool?, repeats: Bool?, initialTrigger: Bool?
        var devices: Set<String>?
        var dwell: Double?, hysteresis: Double?, maximumAccuracy: Double?, minimumInterval: Double?, exitTimeout: Double?
        var seen: UInt32 = 0
        let read = members { d, name in
            if name.isName("region") {
                guard Self.first(&seen, 1), let r = d.region(depth: depth + 1) else { return false }
                region = r
            } else if name.isName("type") {
                guard Self.first(&seen, 2), let type = d.optionalString(), type == nil || type == "location" else { return false }
            } else if name.isName("notifyOnEntry") {
                guard Self.first(&seen, 4), let b = d.optionalBool() else { return false }
                notifyOnEntry = b
            } else if name.isName("notifyOnExit") {
                guard Self.first(&seen, 8), let b = d.optionalBool() else { return false }
                notifyOnExit = b
            } else if name.isName("repeats") {
                guard Self.first(&seen, 16), let b = d.optionalBool() else { return false }
                repeats = b
            } else if name.isName("initialTrigger") {
                guard Self.first(&seen, 32), let b = d.optionalBool() else { return false }
                initialTrigger = b
            } else if name.isName("devices") {
                guard Self.first(&seen, 64), let set = d.devices() else { return false }
                devices = set
            } else if name.isName("dwell") {
                guard Self.first(&seen, 128), let n = d.optionalNumber() else { return false }
                dwell = n
            } else if name.isName("hysteresis") {
                guard Self.first(&seen, 256), let n = d.optionalNumber() else { return false }
                hysteresis = n
            } else if name.isName("maximumAccuracy") {
                guard Self.first(&seen, 512), let n = d.optionalNumber() else { return false }
                maximumAccuracy = n
            } else if name.isName("minimumInterval") {
                guard Self.first(&seen, 1024), let n = d.optionalNumber() else { return false }
                minimumInterval = n
            } else if name.isName("exitTimeout") {
                guard Self.first(&seen, 2048), let n = d.optionalNumber() else { return false }
                exitTimeout = n
            } else {
                return false
            }
            return true
        }
        guard read, let region else { return nil }
        var t = LocationTrigger(region: region)
        t.notifyOnEntry = notifyOnEntry ?? true
        t.notifyOnExit = notifyOnExit ?? true
        guard t.notifyOnEntry || t.notifyOnExit else { return nil }
        t.repeats = repeats ?? false
        t.devices = devices
        if let v = dwell, !(v >= 0) { return nil }
        if let v = hysteresis, !(v >= 0) { return nil }
        if let v = minimumInterval, !(v >= 0) { return nil }
        t.dwell = dwell ?? 0
        t.hysteresis = hysteresis ?? 0
        if let m = maximumAccuracy {
            guard m > 0 else { return nil }
            t.maximumAccuracy = m
        }
        t.initialTrigger = initialTrigger ?? false
        t.minimumInterval = minimumInterval ?? 0
        if let e = exitTimeout {
            guard region.isBeacon, e > 0 else { return nil }
            t.exitTimeout = e
        }
        return t
    }

    /// `devices`: `"*"` or null (every device, `.some(nil)`), or a non-empty array of non-empty device ids.
    mutating func devices() -> Set<String>?? {
        if reader.null() { return .some(nil) }
        if let s = reader.string() { return s == "*" ? .some(nil) : nil }
        guard reader.consume(UInt8(ascii: "[")), !reader.consume(UInt8(ascii: "]")) else { return nil }
        var set = Set<String>()
        while true {
            guard let s = reader.string(), !s.isEmpty else { return nil }
            set.insert(s)
            guard let more = reader.next(orClose: UInt8(ascii: "]")) else { return nil }
            if !more { return .some(set) }
        }
    }

    /// A region's fields as bits, for the check against its type's fields once the whole object is read.
    enum RegionField {
        static let type: UInt32 = 1, id: UInt32 = 2, name: UInt32 = 4, center: UInt32 = 8, radius: UInt32 = 16,
                   geometry: UInt32 = 32, uuid: UInt32 = 64, major: UInt32 = 128, minor: UInt32 = 256,
                   namespace: UInt32 = 512, instance: UInt32 = 1024, proximity: UInt32 = 2048
        static let circle = type | id | name | center | radius
        static let polygon = type | id | name | geometry
        static let beacon = type | id | name | uuid | major | minor | namespace | instance | proximity
    }

    mutating func region(depth: Int) -> Region? {
        typealias F = RegionField
        var type: String?, id: String?, name: String?
        var center: Coordinate?, radius: Double?, geometry: JSONValue?
        var uuid: String?, namespace: String?, instance: String?, proximity: String?
        var major: Double?, minor: Double?
        var seen: UInt32 = 0
        let read = members { d, member in
            if member.isName("type") {
                guard Self.first(&seen, F.type), let s = d.reader.string() else { return false }
                type = s
            } else if member.isName("id") {
                guard Self.first(&seen, F.id), let s = d.reader.string(), !s.isEmpty else { return false }
                id = s
            } else if member.isName("name") {
                guard Self.first(&seen, F.name), let s = d.optionalString() else { return false }
                name = s
            } else if member.isName("center") {
                guard Self.first(&seen, F.center), let c = d.center() else { return false }
                center = c
            } else if member.isName("radius") {
                guard Self.first(&seen, F.radius), let n = d.reader.number(), n.isFinite else { return false }
                radius = n
            } else if member.isName("geometry") {
                guard Self.first(&seen, F.geometry), let g = d.reader.value(depth: depth + 1) else { return false }
                geometry = g
            } else if member.isName("uuid") {
                guard Self.first(&seen, F.uuid), let s = d.optionalString() else { return false }
                uuid = s
            } else if member.isName("major") {
                guard Self.first(&seen, F.major), let n = d.optionalNumber() else { return false }
                major = n
            } else if member.isName("minor") {
                guard Self.first(&seen, F.minor), let n = d.optionalNumber() else { return false }
                minor = n
            } else if member.isName("namespace") {
                guard Self.first(&seen, F.namespace), let s = d.optionalString() else { return false }
                namespace = s
            } else if member.isName("instance") {
                guard Self.first(&seen, F.instance), let s = d.optionalString() else { return false }
                instance = s
            } else if member.isName("proximity") {
                guard Self.first(&seen, F.proximity), let s = d.optionalString() else { return false }
                proximity = s
            } else {
                return false
            }
            return true
        }
        guard read, let type, let id else { return nil }
        switch type {
        case "circle":
            guard seen & ~F.circle == 0, let center, let radius, radius > 0, radius <= 5_000_000 else { return nil }
            return Region(id: id, name: name, shape: .circle(center: center, radius: radius))
        case "polygon":
            guard seen & ~F.polygon == 0, let geometry else { return nil }
            do {
                let set = try PolygonValidation.validated(try GeoJSONGeometry.polygonSet(geometry))
                return Region(id: id, name: name, shape: .polygon(set))
            } catch {
                return nil
            }
        case "beacon":
            guard seen & ~F.beacon == 0 else { return nil }
            var p: Proximity?
            if let proximity {
                guard let v = Proximity(rawValue: proximity), v != .unknown else { return nil }
                p = v
            }
            if let uuid {
                // `namespace` or `instance` given at all, even null, conflicts with `uuid`.
                guard seen & (F.namespace | F.instance) == 0, let u = UUID128(string: uuid) else { return nil }
                guard let majorValue = Self.uint16(major), let minorValue = Self.uint16(minor) else { return nil }
                if minorValue != nil, majorValue == nil { return nil }
                return Region(id: id, name: name, shape: .beacon(BeaconRegion(identifier: .uuid(u, major: majorValue, minor: minorValue), proximity: p)))
            }
            if let namespace {
                guard let ns = EddystoneNamespace(hex: namespace) else { return nil }
                var i: EddystoneInstance?
                if let instance {
                    guard let v = EddystoneInstance(hex: instance) else { return nil }
                    i = v
                }
                return Region(id: id, name: name, shape: .beacon(BeaconRegion(identifier: .eddystone(namespace: ns, instance: i), proximity: p)))
            }
            return nil
        default:
            return nil
        }
    }

    /// A beacon's major or minor as `FieldReader.uint16` takes it: `.some(nil)` when absent or null.
    static func uint16(_ d: Double?) -> UInt16?? {
        guard let d else { return .some(nil) }
        guard d == d.rounded(), d >= 0, d <= 65535 else { return nil }
        return .some(UInt16(d))
    }

    /// A circle's center: both coordinates, in range.
    mutating func center() -> Coordinate? {
        var latitude: Double?, longitude: Double?
        var seen: UInt32 = 0
        let read = members { d, name in
            if name.isName("latitude") {
                guard Self.first(&seen, 1), let n = d.reader.number(), n.isFinite else { return false }
                latitude = n
            } else if name.isName("longitude") {
                guard Self.first(&seen, 2), let n = d.reader.number(), n.isFinite else { return false }
                longitude = n
            } else {
                return false
            }
            return true
        }
        guard read, let latitude, let longitude, latitude >= -90, latitude <= 90, longitude >= -180, longitude <= 180 else {
            return nil
        }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}
