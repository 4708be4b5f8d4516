import JSON
import Geometry

/// GeoJSON `Polygon` / `MultiPolygon` geometry objects ([longitude, latitude] positions) to plain coordinates.
enum GeoJSONGeometry {
    static func polygonSet(_ json: JSONValue) throws(GeometryError) -> PolygonSet {
        guard let type = json["type"]?.stringValue else {
            throw GeometryError("expected a GeoJSON geometry object with \"type\" Polygon or MultiPolygon")
        }
        guard let coordinates = json["coordinates"]?.arrayValue else {
            throw GeometryError("\"coordinates\" must be an array")
        }
        switch type {
        case "Polygon":
            return PolygonSet(polygons: [try polygon(coordinates, path: "coordinates")])
        case "MultiPolygon":
            var polygons: [[[Coordinate]]] = []
            for (k, p) in coordinates.enumerated() {
                guard let rings = p.arrayValue else { throw GeometryError("coordinates[\(k)] must be an array of rings") }
                polygons.append(try polygon(rings, path: "coordinates[\(k)]"))
            }
            return PolygonSet(polygons: polygons)
        default:
            throw GeometryError("geometry type \"\(type)\" is not polygonal; expected Polygon or MultiPolygon")
        }
    }

    static func polygon(_ rings: [JSONValue], path: String) throws(GeometryError) -> [[Coordinate]] {
        guard !rings.isEmpty else { throw GeometryError("\(path) has no rings") }
        var out: [[Coordinate]] = []
        for (r, ring) in rings.enumerated() {
            guard let positions = ring.arrayValue else { throw GeometryError("\(path)[\(r)] must be an array of positions") }
            var coords: [Coordinate] = []
            coords.reserveCapacity(positions.count)
            for (k, p) in positions.enumerated() {
                guard let pair = p.arrayValue, pair.count >= 2, let lon = pair[0].doubleValue, let lat = pair[1].doubleValue else {
                    throw GeometryError("\(path)[\(r)][\(k)] must be a [longitude, latitude] position")
                }
                coords.append(Coordinate(latitude: lat, longitude: lon))
            }
            out.append(coords)
        }
        return out
    }
}
