/// A device found near a point, by the distance of its newest fix.
public struct NearbyDevice: Sendable, Hashable {
    public var device: String
    /// Metres from the query point (geodesic on the WGS84 chord, as the circle test measures).
    public var distance: Double
    public var position: DevicePosition
    public var lastFix: Timestamp
}
