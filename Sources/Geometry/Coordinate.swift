/// A WGS84 position in degrees. GeoJSON orders it [longitude, latitude]; Swift code always names the parts.
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    @inlinable public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public var description: String { "(\(latitude), \(longitude))" }
}

/// Polygonal geometry as plain coordinates: polygons, each an exterior ring followed by its holes, each ring closed
/// (first position == last). The form GeoJSON `Polygon` / `MultiPolygon` decode to and GEOS validates.
public struct PolygonSet: Hashable, Sendable {
    public var polygons: [[[Coordinate]]]
    public init(polygons: [[[Coordinate]]]) { self.polygons = polygons }

    public var vertexCount: Int { polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } }

    /// Each part's bounding box (its rings' vertices; a part with no vertices is left out).
    public var partBounds: [BoundingBox] {
        polygons.compactMap { part in
            var box: BoundingBox?
            for ring in part {
                for c in ring {
                    if var b = box {
                        b.minLatitude = min(b.minLatitude, c.latitude); b.maxLatitude = max(b.maxLatitude, c.latitude)
                        b.minLongitude = min(b.minLongitude, c.longitude); b.maxLongitude = max(b.maxLongitude, c.longitude)
                        box = b
                    } else {
                        box = BoundingBox(minLatitude: c.latitude, maxLatitude: c.latitude, minLongitude: c.longitude, maxLongitude: c.longitude)
                    }
                }
            }
            return box
        }
    }
}
