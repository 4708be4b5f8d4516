/// The other device of a proximity notification: its position as evaluated and how far away it was.
public struct NearbySnapshot: Sendable, Hashable {
    public var device: String
    public var timestamp: Timestamp
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double?
    /// Metres between the two positions (WGS84, as the circle test measures).
    public var distance: Double

    public init(device: String, timestamp: Timestamp, latitude: Double, longitude: Double, horizontalAccuracy: Double?, distance: Double) {
        self.device = device
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.distance = distance
    }
}
