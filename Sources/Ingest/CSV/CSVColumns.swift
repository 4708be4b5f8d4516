/// Which CSV columns hold which fix field. Each property left nil is found in the header by the field's
/// `CSVField.recognisedNames`; a name given here must be present (compared case-insensitively). Build one from user
/// text with `init(mapping:)`, e.g. `device=Vehicle,timestamp="GPS Time"`.
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

    /// The column named for a field, nil when it is found from the header.
    public subscript(field: CSVField) -> String? {
        get {
            switch field {
            case .device: device
            case .timestamp: timestamp
            case .latitude: latitude
            case .longitude: longitude
            case .horizontalAccuracy: horizontalAccuracy
            case .altitude: altitude
            case .speed: speed
            case .course: course
            }
        }
        set {
            switch field {
            case .device: device = newValue
            case .timestamp: timestamp = newValue
            case .latitude: latitude = newValue
            case .longitude: longitude = newValue
            case .horizontalAccuracy: horizontalAccuracy = newValue
            case .altitude: altitude = newValue
            case .speed: speed = newValue
            case .course: course = newValue
            }
        }
    }
}
