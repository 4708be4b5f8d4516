/// Where a device's newest fix put it.
public struct DevicePosition: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Metres, when the fix carried one.
    public var horizontalAccuracy: Double?

    public init(latitude: Double, longitude: Double, horizontalAccuracy: Double?) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
    }
}
