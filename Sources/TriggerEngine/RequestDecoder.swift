import JSON
import Geometry

/// Reads notification requests from JSON (SPEC §1) with errors that name the request, the field and the reason.
/// Usable from any thread (polygon validation borrows a GEOS context per call).
public struct RequestDecoder: Sendable {
    public init() {}

    // Each object's known fields, built once: a set literal per call hashed every name of every request.
    static let requestFields = ["identifier", "content", "trigger"]
    static let contentFields = ["title", "subtitle", "body", "badge", "sound", "categoryIdentifier", "threadIdentifier",
                                "summaryArgument", "userInfo"]
    static let triggerFields = ["type", "region", "notifyOnEntry", "notifyOnExit", "repeats", "devices", "dwell", "hysteresis",
                                "maximumAccuracy", "initialTrigger", "minimumInterval", "exitTimeout"]
    static let circleFields = ["type", "id", "name", "center", "radius"]
    static let centerFields = ["latitude", "longitude"]
    static let polygonFields = ["type", "id", "name", "geometry"]
    static let beaconFields = ["type", "id", "name", "uuid", "major", "minor", "namespace", "instance", "proximity"]
    static let proximityFields = ["type", "id", "name", "radius", "targets", "subjects", "maxAge"]
    static let selectorFields = ["devices", "group"]

    /// A JSON array of requests, or a single request object.
    public func decodeRequests(_ json: JSONValue) throws(RequestError) -> [NotificationRequest] {
        if let items = json.arrayValue {
            var out: [NotificationRequest] = []
            out.reserveCapacity(items.count)
            for (k, item) in items.enumerated() {
                do throws(RequestError) {
                    out.append(try decodeRequest(item))
                } catch {
                    var e = error
                    e.path = e.path.isEmpty ? "[\(k)]" : "[\(k)].\(e.path)"
                    throw e
                }
            }
            return out
        }
        return [try decodeRequest(json)]
    }

    public func decodeRequest(_ json: JSONValue) throws(RequestError) -> NotificationRequest {
        guard let object = json.objectValue else {
            throw RequestError(path: "", reason: "expected a request object, found \(json.kindName)")
        }
        let identifier = json["identifier"]?.stringValue
        let reader = FieldReader(object: object, path: "", identifier: identifier)
        try reader.allowOnly(Self.requestFields)
        guard let identifier, !identifier.isEmpty else {
            throw RequestError(path: "identifier", reason: "required: a non-empty string")
        }
        let content = try decodeContent(try reader.object("content", required: false) ?? [], identifier: identifier)
        guard let triggerObject = try reader.object("trigger", required: true) else {
            throw RequestError(identifier: identifier, path: "trigger", reason: "required")
        }
        let trigger = try decodeTrigger(triggerObject, identifier: identifier)
        let request = NotificationRequest(identifier: identifier, content: content, trigger: trigger)
        try RequestDecoder.checkTemplates(request)
        return request
    }

    /// Refuses unknown placeholders when the request is added, not when it fires.
    static func checkTemplates(_ r: NotificationRequest) throws(RequestError) {
        _ = try CompiledTemplates(r)
    }

    func decodeContent(_ object: [(key: String, value: JSONValue)], identifier: String) throws(RequestError) -> NotificationContent {
        let r = FieldReader(object: object, path: "content", identifier: identifier)
        try r.allowOnly(Self.contentFields)
        var c = NotificationContent()
        c.title = try r.string("title") ?? ""
        c.subtitle = try r.string("subtitle") ?? ""
        c.body = try r.string("body") ?? ""
        if let badge = try r.number("badge") {
            guard badge == badge.rounded(), badge >= 0, badge <= Double(Int32.max) else {
                throw r.error("badge", "must be a whole number ≥ 0")
            }
            c.badge = Int(badge)
        }
        c.sound = try r.string("sound")
        c.categoryIdentifier = try r.string("categoryIdentifier") ?? ""
        c.threadIdentifier = try r.string("threadIdentifier")
        c.summaryArgument = try r.string("summaryArgument")
        if let info = r.value("userInfo"), !info.isNull {
            guard info.objectValue != nil else { throw r.error("userInfo", "expected an object, found \(info.kindName)") }
            c.userInfo = info
        }
        return c
    }

    func decodeTrigger(_ object: [(key: String, value: JSONValue)], identifier: String) throws(RequestError) -> LocationTrigger {
        let r = FieldReader(object: object, path: "trigger", identifier: identifier)
        try r.allowOnly(Self.triggerFields)
        if let type = try r.string("type"), type != "location" {
            throw r.error("type", "unsupported trigger type \"\(type)\"; only \"location\"")
        }
        guard let regionObject = try r.object("region", required: true) else { throw r.error("region", "required") }
        let region = try decodeRegion(regionObject, identifier: identifier)
        var t = LocationTrigger(region: region)
        t.notifyOnEntry = try r.bool("notifyOnEntry") ?? true
        t.notifyOnExit = try r.bool("notifyOnExit") ?? true
        guard t.notifyOnEntry || t.notifyOnExit else {
            throw r.error("notifyOnEntry", "at least one of notifyOnEntry and notifyOnExit must be true")
        }
        t.repeats = try r.bool("repeats") ?? false
        if let devices = r.value("devices"), !devices.isNull {
            if devices.stringValue == "*" {
                t.devices = nil
            } else if let list = devices.arrayValue {
                var set = Set<String>()
                for (k, d) in list.enumerated() {
                    guard let s = d.stringValue, !s.isEmpty else { throw r.error("devices[\(k)]", "expected a non-empty string") }
                    set.insert(s)
                }
                guard !set.isEmpty else { throw r.error("devices", "an empty list matches no device; omit it or use \"*\"") }
                t.devices = set
            } else {
                throw r.error("devices", "expected an array of device ids or \"*\", found \(devices.kindName)")
            }
        }
        t.dwell = try r.nonNegative("dwell") ?? 0
        t.hysteresis = try r.nonNegative("hysteresis") ?? 0
        if let m = try r.number("maximumAccuracy") {
            guard m > 0 else { throw r.error("maximumAccuracy", "must be > 0 metres (or null)") }
            t.maximumAccuracy = m
        }
        t.initialTrigger = try r.bool("initialTrigger") ?? false
        t.minimumInterval = try r.nonNegative("minimumInterval") ?? 0
        if case let .proximity(p) = region.shape, p.subjects != nil, t.devices != nil {
            throw r.error("devices", "give the subjects either here or as trigger.region.subjects, not both")
        }
        if let e = try r.number("exitTimeout") {
            guard region.isBeacon else { throw r.error("exitTimeout", "applies to beacon regions only") }
            guard e > 0 else { throw r.error("exitTimeout", "must be > 0 seconds") }
            t.exitTimeout = e
        }
        return t
    }

    func decodeRegion(_ object: [(key: String, value: JSONValue)], identifier: String) throws(RequestError) -> Region {
        let r = FieldReader(object: object, path: "trigger.region", identifier: identifier)
        guard let type = try r.string("type") else {
            throw r.error("type", "required: \"circle\", \"polygon\", \"beacon\" or \"proximity\"")
        }
        guard let id = try r.string("id"), !id.isEmpty else { throw r.error("id", "required: a non-empty string") }
        let name = try r.string("name")
        switch type {
        case "circle":
            try r.allowOnly(Self.circleFields)
            guard let center = try r.object("center", required: true) else { throw r.error("center", "required") }
            let c = FieldReader(object: center, path: "trigger.region.center", identifier: identifier)
            try c.allowOnly(Self.centerFields)
            guard let lat = try c.number("latitude") else { throw c.error("latitude", "required") }
            guard let lon = try c.number("longitude") else { throw c.error("longitude", "required") }
            guard lat >= -90, lat <= 90 else { throw c.error("latitude", "\(lat) is outside [-90, 90]") }
            guard lon >= -180, lon <= 180 else { throw c.error("longitude", "\(lon) is outside [-180, 180]") }
            guard let radius = try r.number("radius") else { throw r.error("radius", "required") }
            guard radius > 0, radius.isFinite else { throw r.error("radius", "must be > 0 metres") }
            guard radius <= 5_000_000 else { throw r.error("radius", "must be at most 5,000 km") }
            return Region(id: id, name: name, shape: .circle(center: Coordinate(latitude: lat, longitude: lon), radius: radius))
        case "polygon":
            try r.allowOnly(Self.polygonFields)
            guard let geometry = r.value("geometry") else { throw r.error("geometry", "required: a GeoJSON Polygon or MultiPolygon") }
            let polygons: PolygonSet
            do throws(RequestError) { polygons = try GeoJSONGeometry.polygonSet(geometry) } catch {
                throw r.error("geometry.\(error.path)", error.reason)
            }
            let set: PolygonSet
            do throws(GeometryError) { set = try PolygonValidation.validated(polygons) } catch {
                throw r.error("geometry", error.reason)
            }
            return Region(id: id, name: name, shape: .polygon(set))
        case "beacon":
            try r.allowOnly(Self.beaconFields)
            var proximity: Proximity?
            if let p = try r.string("proximity") {
                guard let v = Proximity(rawValue: p), v != .unknown else {
                    throw r.error("proximity", "expected \"immediate\", \"near\" or \"far\", found \"\(p)\"")
                }
                proximity = v
            }
            if let uuidText = try r.string("uuid") {
                guard r.value("namespace") == nil, r.value("instance") == nil else {
                    throw r.error("namespace", "give either uuid (iBeacon/AltBeacon) or namespace (Eddystone), not both")
                }
                guard let uuid = UUID128(string: uuidText) else { throw r.error("uuid", "\"\(uuidText)\" is not a UUID") }
                let major = try r.uint16("major")
                let minor = try r.uint16("minor")
                if minor != nil, major == nil { throw r.error("minor", "minor requires major") }
                return Region(id: id, name: name, shape: .beacon(BeaconRegion(identifier: .uuid(uuid, major: major, minor: minor), proximity: proximity)))
            }
            if let nsText = try r.string("namespace") {
                guard let ns = EddystoneNamespace(hex: nsText) else {
                    throw r.error("namespace", "expected 20 hex digits (10 bytes), found \"\(nsText)\"")
                }
                var instance: EddystoneInstance?
                if let instText = try r.string("instance") {
                    guard let i = EddystoneInstance(hex: instText) else {
                        throw r.error("instance", "expected 12 hex digits (6 bytes), found \"\(instText)\"")
                    }
                    instance = i
                }
                return Region(id: id, name: name, shape: .beacon(BeaconRegion(identifier: .eddystone(namespace: ns, instance: instance), proximity: proximity)))
            }
            throw r.error("uuid", "a beacon region needs uuid (iBeacon/AltBeacon) or namespace (Eddystone-UID)")
        case "proximity":
            try r.allowOnly(Self.proximityFields)
            return Region(id: id, name: name, shape: .proximity(try decodeProximity(r, identifier: identifier)))
        default:
            throw r.error("type", "unknown region type \"\(type)\"; expected \"circle\", \"polygon\", \"beacon\" or \"proximity\"")
        }
    }
}

/// Typed access to one JSON object's members, with errors naming the dotted path.
struct FieldReader {
    let object: [(key: String, value: JSONValue)]
    let path: String
    let identifier: String?

    func error(_ field: String, _ reason: String) -> RequestError {
        RequestError(identifier: identifier, path: path.isEmpty ? field : "\(path).\(field)", reason: reason)
    }

    func value(_ key: String) -> JSONValue? { object.first { $0.key == key }?.value }

    /// A few names each: a scan of short strings is cheaper than hashing them.
    func allowOnly(_ keys: [String]) throws(RequestError) {
        for m in object where !keys.contains(m.key) {
            throw error(m.key, "unknown field (known: \(keys.sorted().joined(separator: ", ")))")
        }
    }

    func string(_ key: String) throws(RequestError) -> String? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let s = v.stringValue else { throw error(key, "expected a string, found \(v.kindName)") }
        return s
    }

    func number(_ key: String) throws(RequestError) -> Double? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let d = v.doubleValue, d.isFinite else { throw error(key, "expected a number, found \(v.kindName)") }
        return d
    }

    func nonNegative(_ key: String) throws(RequestError) -> Double? {
        guard let d = try number(key) else { return nil }
        guard d >= 0 else { throw error(key, "must be ≥ 0, found \(d)") }
        return d
    }

    func uint16(_ key: String) throws(RequestError) -> UInt16? {
        guard let d = try number(key) else { return nil }
        guard d == d.rounded(), d >= 0, d <= 65535 else { throw error(key, "must be a whole number in 0…65535") }
        return UInt16(d)
    }

    func bool(_ key: String) throws(RequestError) -> Bool? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let b = v.boolValue else { throw error(key, "expected true or false, found \(v.kindName)") }
        return b
    }

    func object(_ key: String, required: Bool) throws(RequestError) -> [(key: String, value: JSONValue)]? {
        guard let v = value(key), !v.isNull else {
            if required { throw error(key, "required") }
            return nil
        }
        guard let o = v.objectValue else { throw error(key, "expected an object, found \(v.kindName)") }
        return o
    }
}
