/// A fix field a CSV column can hold, with the header names recognised for it when no mapping names the column.
public enum CSVField: String, CaseIterable, Sendable {
    case device, timestamp, latitude, longitude, horizontalAccuracy, altitude, speed, course

    /// Header names found automatically, most specific first (so `vehicle` wins over a row `id`). Matching ignores
    /// case, spaces, underscores, hyphens and dots: `Vehicle ID`, `vehicle_id` and `VehicleId` are one name.
    public var recognisedNames: [String] {
        switch self {
        case .device:
            // A bare `id` comes last: in most exports it numbers the rows, and it is used only when nothing better is
            // there (the decoder warns when it gives nearly every row its own device).
            ["device", "device_id", "vehicle", "vehicle_id", "vehicle_ref", "tracker", "tracker_id", "unit", "unit_id",
             "imei", "asset", "asset_id", "tid", "name", "id"]
        case .timestamp:
            ["timestamp", "time", "datetime", "gps_time", "fix_time", "utc_time", "time_utc", "recorded_at"]
        case .latitude: ["latitude", "lat"]
        case .longitude: ["longitude", "lon", "lng", "long"]
        case .horizontalAccuracy: ["horizontal_accuracy", "accuracy", "hacc", "acc"]
        case .altitude: ["altitude", "alt", "elevation", "ele"]
        case .speed: ["speed", "velocity"]
        case .course: ["course", "bearing", "heading"]
        }
    }

    /// A row cannot become a fix without these (the device may come from the file name instead).
    public var isRequired: Bool { self == .timestamp || self == .latitude || self == .longitude }

    /// The keys a column mapping accepts for this field: its name and the common short forms.
    public var mappingKeys: [String] {
        switch self {
        case .device: ["device"]
        case .timestamp: ["timestamp", "time"]
        case .latitude: ["latitude", "lat"]
        case .longitude: ["longitude", "lon", "lng"]
        case .horizontalAccuracy: ["horizontalAccuracy", "accuracy", "acc"]
        case .altitude: ["altitude", "alt", "ele"]
        case .speed: ["speed"]
        case .course: ["course", "bearing", "heading"]
        }
    }

    /// The form header names are compared in: lower case without spaces, underscores, hyphens or dots.
    static func normalised(_ name: some StringProtocol) -> String {
        String(String.UnicodeScalarView(name.lowercased().unicodeScalars.filter { !" _-.\t".unicodeScalars.contains($0) }))
    }
}
