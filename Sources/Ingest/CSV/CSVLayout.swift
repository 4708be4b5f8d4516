/// A CSV header resolved against `CSVColumns`: which column holds each field, and what is missing. Public so a
/// transport can check a header (and report it) before rows arrive.
public struct CSVLayout: Sendable {
    var device, timestamp, latitude, longitude, accuracy, altitude, speed, course: Int?
    var names: FixFieldNames
    /// The header as written.
    public let header: [String]
    /// Required fields without a column (with the name asked for, when it was explicit); non-empty means no row can
    /// be decoded.
    public let missing: [String]

    public init(header: [String], columns: CSVColumns) {
        self.header = header
        let lowered = header.map { $0.lowercased() }
        let normalised = header.map(CSVField.normalised)
        var missing: [String] = []
        func find(_ field: CSVField) -> Int? {
            if let explicit = columns[field] {
                // An explicit name is matched exactly first (case aside), then as the automatic names are.
                if let k = lowered.firstIndex(of: explicit.lowercased()) ?? normalised.firstIndex(of: CSVField.normalised(explicit)) {
                    return k
                }
                missing.append("\(field.rawValue) (column \"\(explicit)\")")
                return nil
            }
            for name in field.recognisedNames {
                if let k = normalised.firstIndex(of: CSVField.normalised(name)) { return k }
            }
            if field.isRequired { missing.append(field.rawValue) }
            return nil
        }
        device = find(.device)
        timestamp = find(.timestamp)
        latitude = find(.latitude)
        longitude = find(.longitude)
        accuracy = find(.horizontalAccuracy)
        altitude = find(.altitude)
        speed = find(.speed)
        course = find(.course)
        self.missing = missing
        func name(_ k: Int?, _ fallback: String) -> String { k.map { header[$0] } ?? fallback }
        names = FixFieldNames(
            device: name(device, "device"), timestamp: name(timestamp, "timestamp"),
            latitude: name(latitude, "latitude"), longitude: name(longitude, "longitude"),
            accuracy: name(accuracy, "horizontalAccuracy"), altitude: name(altitude, "altitude"),
            speed: name(speed, "speed"), course: name(course, "course"))
    }

    /// The header column that holds a field, nil when none does.
    public func column(for field: CSVField) -> String? {
        let k: Int?
        switch field {
        case .device: k = device
        case .timestamp: k = timestamp
        case .latitude: k = latitude
        case .longitude: k = longitude
        case .horizontalAccuracy: k = accuracy
        case .altitude: k = altitude
        case .speed: k = speed
        case .course: k = course
        }
        return k.map { header[$0] }
    }

    /// Why no row can be read, naming what the header has and what would be recognised; nil when nothing is missing.
    public var problem: String? {
        guard !missing.isEmpty else { return nil }
        let shown = header.prefix(12).map { "\"\($0)\"" }.joined(separator: ", ") + (header.count > 12 ? ", …" : "")
        var s = "the header has no column for " + missing.joined(separator: ", ") + "; it has " + shown
        for field in CSVField.allCases where field.isRequired && column(for: field) == nil {
            s += "; \(field.rawValue) is recognised as " + field.recognisedNames.joined(separator: ", ")
        }
        return s + ". No row can be read"
    }
}
