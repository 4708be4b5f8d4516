/// Which CSV columns hold which fix field. Each property left nil is found in the header by its common spellings
/// (case-insensitive, most specific first, so `vehicle_id` wins over a row `id`); a name given here must be present.
public struct CSVColumns: Sendable, Hashable {
    public var device: String?
    public var timestamp: String?
    public var latitude: String?
    public var longitude: String?
    public var horizontalAccuracy: String?
    public var altitude: String?
    public var speed: String?
    public var course: String?

    public init(
        device: String? = nil, timestamp: String? = nil, latitude: String? = nil, longitude: String? = nil,
        horizontalAccuracy: String? = nil, altitude: String? = nil, speed: String? = nil, course: String? = nil
    ) {
        self.device = device
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.altitude = altitude
        self.speed = speed
        self.course = course
    }

    /// Every column found from the header.
    public static let automatic = CSVColumns()

    // Recognised spellings, lower case, most specific first.
    static let deviceNames = ["device", "device_id", "deviceid", "vehicle_id", "vehicleid", "tid", "name", "id"]
    static let timestampNames = ["timestamp", "time", "datetime", "date_time"]
    static let latitudeNames = ["latitude", "lat"]
    static let longitudeNames = ["longitude", "lon", "lng", "long"]
    static let accuracyNames = ["horizontalaccuracy", "horizontal_accuracy", "accuracy", "hacc", "acc"]
    static let altitudeNames = ["altitude", "alt", "elevation", "ele"]
    static let speedNames = ["speed", "velocity"]
    static let courseNames = ["course", "bearing", "heading"]
}
