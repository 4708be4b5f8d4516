import JSON
import Geometry

extension RequestDecoder {
    /// A region file: a JSON array of requests (SPEC §1), a single request, or a GeoJSON FeatureCollection whose
    /// features are regions drawn in any GIS tool.
    ///
    /// For features: the geometry is the region (Polygon/MultiPolygon; a Point with a `radius` property is a circle);
    /// properties carry the request: `identifier` (else the feature's `id`), `content` (or flat `title`, `subtitle`,
    /// `body`, …), `trigger` (or flat trigger fields such as `notifyOnExit`, `repeats`, `dwell`), and `regionId`
    /// (else the feature id, else the identifier) and `name` for the region.
    public func decodeRegionFile(_ json: JSONValue) throws(RequestError) -> [NotificationRequest] {
        guard json["type"]?.stringValue == "FeatureCollection" else { return try decodeRequests(json) }
        guard let features = json["features"]?.arrayValue else {
            throw RequestError(path: "features", reason: "a FeatureCollection needs a \"features\" array")
        }
        var out: [NotificationRequest] = []
        for (k, feature) in features.enumerated() {
            do throws(RequestError) {
                out.append(try decodeRequest(try Self.requestJSON(fromFeature: feature)))
            } catch {
                var e = error
                e.path = e.path.isEmpty ? "features[\(k)]" : "features[\(k)].\(e.path)"
                throw e
            }
        }
        return out
    }

    /// The SPEC §1 form of a request body (the service accepts what the CLI's region files hold): a FeatureCollection
    /// becomes an array of request objects, a Feature one request object, anything else stays as it is. Journaled and
    /// listed in this form, so a restart never needs the GeoJSON again.
    public static func requestsJSON(fromGeoJSON json: JSONValue) throws(RequestError) -> JSONValue {
        switch json["type"]?.stringValue {
        case "Feature":
            return try requestJSON(fromFeature: json)
        case "FeatureCollection":
            guard let features = json["features"]?.arrayValue else {
                throw RequestError(path: "features", reason: "a FeatureCollection needs a \"features\" array")
            }
            var out: [JSONValue] = []
            for (k, feature) in features.enumerated() {
                do throws(RequestError) {
                    out.append(try requestJSON(fromFeature: feature))
                } catch {
                    var e = error
                    e.path = e.path.isEmpty ? "features[\(k)]" : "features[\(k)].\(e.path)"
                    throw e
                }
            }
            return .array(out)
        default:
            return json
        }
    }

    static let contentKeys: Set<String> = ["title", "subtitle", "body", "badge", "sound", "categoryIdentifier",
                                           "threadIdentifier", "summaryArgument", "userInfo"]
    static let triggerKeys: Set<String> = ["notifyOnEntry", "notifyOnExit", "repeats", "devices", "dwell", "hysteresis",
                                           "maximumAccuracy", "initialTrigger", "minimumInterval", "exitTimeout"]

    /// Rewrites one GeoJSON Feature as a request object in the SPEC §1 shape.
    static func requestJSON(fromFeature feature: JSONValue) throws(RequestError) -> JSONValue {
        guard feature["type"]?.stringValue == "Feature" else {
            throw RequestError(path: "type", reason: "expected a GeoJSON Feature")
        }
        let properties = feature["properties"]?.objectValue ?? []
        func property(_ k: String) -> JSONValue? { properties.first { $0.key == k }?.value }
        let featureID: String? = feature["id"].flatMap { $0.stringValue ?? ($0.doubleValue.map { JSONValue.number($0).jsonText }) }
        guard let identifier = property("identifier")?.stringValue ?? featureID else {
            throw RequestError(path: "properties.identifier", reason: "required (or a feature \"id\")")
        }
        guard let geometry = feature["geometry"], !geometry.isNull else {
            throw RequestError(identifier: identifier, path: "geometry", reason: "required")
        }
        let regionID = property("regionId")?.stringValue ?? featureID ?? identifier
        var region: [(key: String, value: JSONValue)] = []
        if geometry["type"]?.stringValue == "Point" {
            guard let c = geometry["coordinates"]?.arrayValue, c.count >= 2, let lon = c[0].doubleValue, let lat = c[1].doubleValue else {
                throw RequestError(identifier: identifier, path: "geometry.coordinates", reason: "expected [longitude, latitude]")
            }
            guard let radius = property("radius") else {
                throw RequestError(identifier: identifier, path: "properties.radius", reason: "a Point feature needs a radius in metres")
            }
            region = [("type", "circle"), ("id", .string(regionID)),
                      ("center", .object([("latitude", .number(lat)), ("longitude", .number(lon))])), ("radius", radius)]
        } else {
            region = [("type", "polygon"), ("id", .string(regionID)), ("geometry", geometry)]
        }
        if let name = property("name") { region.insert(("name", name), at: 2) }
        var content = property("content")?.objectValue ?? []
        var trigger = property("trigger")?.objectValue ?? []
        for p in properties {
            if contentKeys.contains(p.key), !content.contains(where: { $0.key == p.key }) { content.append(p) }
            if triggerKeys.contains(p.key), !trigger.contains(where: { $0.key == p.key }) { trigger.append(p) }
        }
        trigger.append(("region", .object(region)))
        return .object([("identifier", .string(identifier)), ("content", .object(content)), ("trigger", .object(trigger))])
    }
}
