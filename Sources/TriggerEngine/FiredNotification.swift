/// A fired notification request, as handed to the scheduler (SPEC §4).
public struct FiredNotification: Sendable, Hashable {
    public enum Event: String, Sendable { case entry, exit }

    public var identifier: String
    /// Stable and unique per firing: `identifier/device/revision-n`, the scheduler's idempotency key.
    public var deliveryId: String
    public var content: NotificationContent
    public var event: Event
    public var repeats: Bool
    public var regionType: String
    public var regionID: String
    public var regionName: String?
    public var device: String
    public var fix: FixSnapshot?
    public var beacon: BeaconSnapshot?
    public var firedAt: Timestamp
}

/// The fix behind a notification.
public struct FixSnapshot: Sendable, Hashable {
    public var timestamp: Timestamp
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double?

    public init(timestamp: Timestamp, latitude: Double, longitude: Double, horizontalAccuracy: Double?) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
    }
}

/// The sighting behind a beacon notification.
public struct BeaconSnapshot: Sendable, Hashable {
    public var timestamp: Timestamp
    public var identity: BeaconIdentity
    public var rssi: Int?
    public var proximity: Proximity
    public var distance: Double?
    public var address: String?
}
