/// A latitude/longitude rectangle that never crosses the antimeridian (crossing shapes are split first).
public struct BoundingBox: Hashable, Sendable {
    public var minLatitude: Double
    public var maxLatitude: Double
    public var minLongitude: Double
    public var maxLongitude: Double

    @inlinable
    public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.maxLatitude = maxLatitude
        self.minLongitude = minLongitude
        self.maxLongitude = maxLongitude
    }

    @inlinable
    public func contains(latitude: Double, longitude: Double) -> Bool {
        latitude >= minLatitude && latitude <= maxLatitude && longitude >= minLongitude && longitude <= maxLongitude
    }

    @inlinable
    public func intersects(_ o: BoundingBox) -> Bool {
        minLatitude <= o.maxLatitude && o.minLatitude <= maxLatitude && minLongitude <= o.maxLongitude
            && o.minLongitude <= maxLongitude
    }

    /// The boxes covering a geodesic circle: one, or two when it crosses the antimeridian; a polar cap spans all
    /// longitudes.
    public static func covering(center: Coordinate, radius: Double) -> [BoundingBox] {
        let dLat = Geodesy.latitudeDegrees(spanning: radius)
        let minLat = max(-90, center.latitude - dLat), maxLat = min(90, center.latitude + dLat)
        let dLon = Geodesy.longitudeDegrees(spanning: radius, atLatitude: abs(center.latitude))
        if dLon >= 180 || maxLat >= 90 || minLat <= -90 {
            return [BoundingBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: 180)]
        }
        let lo = center.longitude - dLon, hi = center.longitude + dLon
        if lo < -180 {
            return [BoundingBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: hi),
                    BoundingBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: lo + 360, maxLongitude: 180)]
        }
        if hi > 180 {
            return [BoundingBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: lo, maxLongitude: 180),
                    BoundingBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: hi - 360)]
        }
        return [BoundingBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: lo, maxLongitude: hi)]
    }
}
