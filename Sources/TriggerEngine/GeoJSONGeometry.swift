import JSON
import Geometry

/// GeoJSON `Polygon` / `MultiPolygon` geometry objects ([longitude, latitude] positions) to plain coordinates.
/// Errors carry the path inside the geometry object (`coordinates[0][2]`), so a request's error and a GeoJSON
/// feature's error can each name the position the user wrote.
enum GeoJSONGeometry {
    static func polygonSet(_ json: JSONValue) throws(RequestError) -> PolygonSet {
        guard let type = json["type"]?.stringValue else {
            throw RequestError(path: "type", reason: "expected a GeoJSON geometry object with \"type\" Polygon or MultiPolygon")
        }
        guard let coordinates = json["coordinates"]?.arrayValue else {
            throw RequestError(path: "coordinates", reason: "must be an array")
        }
        switch type {
        case "Polygon":
            return PolygonSet(polygons: [try polygon(coordinates, path: "coordinates")])
        case "MultiPolygon":
            var polygons: [[[Coordinate]]] = []
            for (k, p) in coordinates.enumerated() {
                guard let rings = p.arrayValue else { throw RequestError(path: "coordinates[\(k)]", reason: "must be an array of rings") }
                polygons.append(try polygon(rings, path: "coordinates[\(k)]"))
            }
            return PolygonSet(polygons: polygons)
        default:
            throw RequestError(path: "type", reason: "geometry type \"\(type)\" is not polygonal; expected Polygon or MultiPolygon")
        }
    }

    static func polygon(_ rings: [JSONValue], path: String) throws(RequestError) -> [[Coordinate]] {
        guard !rings.isEmpty else { throw RequestError(path: path, reason: "has no rings") }
        var out: [[Coordinate]] = []
        for (r, ring) in rings.enumerated() {
            guard let positions = ring.arrayValue else { throw RequestError(path: "\(path)[\(r)]", reason: "must be an array of positions") }
            var coords: [Coordinate] = []
            coords.reserveCapacity(positions.count)
            for (k, p) in positions.enumerated() {
                guard let pair = p.arrayValue, pair.count >= 2, let lon = pair[0].doubleValue, let lat = pair[1].doubleValue else {
                    throw RequestError(path: "\(path)[\(r)][\(k)]", reason: "must be a [longitude, latitude] position")
                }
                coords.append(Coordinate(latitude: lat, longitude: lon))
            }
            out.append(coords)
        }
        return out
    }
}
