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

/// A header resolved against `CSVColumns`: column indexes and the header's own spelling, for error reports.
struct CSVLayout {
    var device, timestamp, latitude, longitude, accuracy, altitude, speed, course: Int?
    var names: FixFieldNames
    /// Required columns that are absent, by field name; non-empty means no row can be decoded.
    var missing: [String] = []

    init(header: [String], columns: CSVColumns) {
        let lowered = header.map { $0.lowercased() }
        var missing: [String] = []
        func find(_ explicit: String?, _ candidates: [String], role: String) -> Int? {
            if let explicit {
                let wanted = explicit.lowercased()
                guard let k = lowered.firstIndex(of: wanted) else {
                    missing.append("\(role) (column \"\(explicit)\")")
                    return nil
                }
                return k
            }
            for name in candidates { if let k = lowered.firstIndex(of: name) { return k } }
            return nil
        }
        device = find(columns.device, CSVColumns.deviceNames, role: "device")
        timestamp = find(columns.timestamp, CSVColumns.timestampNames, role: "timestamp")
        latitude = find(columns.latitude, CSVColumns.latitudeNames, role: "latitude")
        longitude = find(columns.longitude, CSVColumns.longitudeNames, role: "longitude")
        accuracy = find(columns.horizontalAccuracy, CSVColumns.accuracyNames, role: "horizontalAccuracy")
        altitude = find(columns.altitude, CSVColumns.altitudeNames, role: "altitude")
        speed = find(columns.speed, CSVColumns.speedNames, role: "speed")
        course = find(columns.course, CSVColumns.courseNames, role: "course")
        if timestamp == nil, columns.timestamp == nil { missing.append("timestamp") }
        if latitude == nil, columns.latitude == nil { missing.append("latitude") }
        if longitude == nil, columns.longitude == nil { missing.append("longitude") }
        self.missing = missing
        func name(_ k: Int?, _ fallback: String) -> String { k.map { header[$0] } ?? fallback }
        names = FixFieldNames(
            device: name(device, "device"), timestamp: name(timestamp, "timestamp"),
            latitude: name(latitude, "latitude"), longitude: name(longitude, "longitude"),
            accuracy: name(accuracy, "horizontalAccuracy"), altitude: name(altitude, "altitude"),
            speed: name(speed, "speed"), course: name(course, "course"))
    }
}
