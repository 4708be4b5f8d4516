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
