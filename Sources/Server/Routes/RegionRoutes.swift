import Hummingbird
import JSON
import Storage

/// `GET /v1/regions`: the region of every registered request, paged by request identifier, as JSON or (with
/// `Accept: application/geo+json`) as a GeoJSON FeatureCollection in the form `POST /v1/requests` reads back: a
/// circle is a Point with `radius`, a polygon its Polygon or MultiPolygon, and the request identifier, region id
/// and name are the properties the GeoJSON import takes them from (`identifier`, `regionId`, `name`). A beacon
/// region has no place: it is a feature with a null geometry (RFC 7946 §3.2) and its beacon fields as properties.
/// A region several requests share is listed once per request.
struct RegionRoutes: Sendable {
    let store: any StateStore

    func register(read: RouterGroup<APIContext>) {
        read.get("regions") { request, _ in try list(request) }
    }

    static let parameters: Set<String> = ["limit", "cursor"]

    private func list(_ request: Request) throws -> Response {
        let q = request.uri.queryParameters
        for (name, _) in q where !Self.parameters.contains(String(name)) {
            throw Problem(.badRequest, title: "Bad paging", detail: "unknown parameter '\(name)'; this route takes cursor, limit")
        }
        let limit = try APIRoutes.integer(q.get("limit"), name: "limit") ?? APIRoutes.defaultPageSize
        guard (1...APIRoutes.maximumPageSize).contains(limit) else {
            throw Problem(.badRequest, title: "Bad paging", detail: "limit must be 1…\(APIRoutes.maximumPageSize)")
        }
        let cursor = q.get("cursor").map { String($0) }
        if cursor == "" { throw Problem(.badRequest, title: "Bad paging", detail: "cursor: empty; give the nextCursor of the previous page") }
        let page = try store.requestsPage(after: cursor, offset: 0, limit: limit, region: nil, device: nil)
        let next = page.count == limit ? page.last?.identifier : nil
        let regions = page.compactMap { r -> (identifier: String, region: JSONValue)? in
            // The stored JSON is what the service accepted and wrote itself: a request without a region cannot be.
            guard let json = try? JSONParser.parse(r.json), let region = json["trigger"]?["region"] else { return nil }
            return (r.identifier, region)
        }
        let geoJSON = request.headers[values: .accept].contains { $0.lowercased().contains("application/geo+json") }
        var w = JSONWriter()
        w.beginObject()
        if geoJSON {
            w.field("type", "FeatureCollection")
            w.key("features"); w.beginArray()
            for r in regions { Self.writeFeature(r.identifier, r.region, &w) }
            w.endArray()
        } else {
            w.key("regions"); w.beginArray()
            for r in regions {
                w.beginObject()
                w.field("identifier", r.identifier)
                w.key("region"); w.value(r.region)
                w.endObject()
            }
            w.endArray()
        }
        if let next { w.field("nextCursor", next) }
        w.endObject()
        return Response(status: .ok, headers: [.contentType: geoJSON ? "application/geo+json" : "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: w.bytes)))
    }

    /// One request's region as a GeoJSON Feature (`GeoJSONFeature`'s reading, backwards).
    static func writeFeature(_ identifier: String, _ region: JSONValue, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("type", "Feature")
        w.key("geometry")
        let type = region["type"]?.stringValue ?? ""
        switch type {
        case "circle":
            w.beginObject()
            w.field("type", "Point")
            w.key("coordinates"); w.beginArray()
            w.number(region["center"]?["longitude"]?.doubleValue ?? 0)
            w.number(region["center"]?["latitude"]?.doubleValue ?? 0)
            w.endArray()
            w.endObject()
        case "polygon":
            w.value(region["geometry"] ?? .null)
        default:
            w.null()
        }
        w.key("properties"); w.beginObject()
        w.field("identifier", identifier)
        w.field("regionId", region["id"]?.stringValue ?? "")
        if let name = region["name"] { w.key("name"); w.value(name) }
        if type == "circle", let radius = region["radius"] { w.key("radius"); w.value(radius) }
        if type == "beacon" || type == "proximity", case .object(let members) = region {
            for (key, value) in members where !["type", "id", "name"].contains(key) { w.key(key); w.value(value) }
        }
        w.endObject()
        w.endObject()
    }
}
