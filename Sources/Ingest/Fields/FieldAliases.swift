import JSON

/// The names each fix field goes by, in one table for every reader that finds fields by name: NDJSON keys
/// (`NDJSONFixDecoder`, and `device`/`timestamp` of `NDJSONSightingDecoder`), CSV headers found without a mapping
/// (`CSVField.recognisedNames`) and `--columns` keys (`CSVField.mappingKeys`). The app formats' own names are in it
/// (OwnTracks `tid`, `tst`, `acc`; Traccar `deviceId`, `fixTime`), so a file exported with them reads as NDJSON or CSV
/// too; the app decoders themselves keep their documented payloads.
///
/// Names are compared normalised: case, spaces, underscores, hyphens and dots aside (`Vehicle ID`, `vehicle_id` and
/// `vehicleId` are one name).
public enum FieldAliases {
    /// The names per field, SPEC §2's first, most specific first after it: a CSV header takes the first that matches.
    public static func names(of field: CSVField) -> [String] {
        switch field {
        case .device:
            // `name` and a bare `id` come last and only for CSV headers (`isHeaderOnly`): in most exports they
            // number or label rows, and a CSV uses them only when nothing better is there (with a warning).
            ["device", "device_id", "vehicle", "vehicle_id", "vehicle_ref", "tracker", "tracker_id", "unit", "unit_id",
             "imei", "asset", "asset_id", "tid", "name", "id"]
        case .timestamp:
            ["timestamp", "time", "datetime", "gps_time", "fix_time", "utc_time", "time_utc", "recorded_at", "tst"]
        case .latitude: ["latitude", "lat"]
        case .longitude: ["longitude", "lon", "lng", "long"]
        case .horizontalAccuracy: ["horizontal_accuracy", "accuracy", "hacc", "acc"]
        case .altitude: ["altitude", "alt", "elevation", "ele"]
        case .speed: ["speed", "velocity"]
        case .course: ["course", "bearing", "heading"]
        }
    }

    /// Names taken from a CSV header only as a last resort, never as a JSON key: an NDJSON record's `id` or `name`
    /// is far more often the record's own than its device's.
    public static func isHeaderOnly(_ name: String) -> Bool { name == "id" || name == "name" }

    /// Every name a JSON key is read by, normalised, with its field: built once.
    static let jsonKeys: [(name: [UInt8], field: FixField)] = CSVField.allCases.flatMap { field in
        names(of: field).filter { !isHeaderOnly($0) }.map { (Array(CSVField.normalised($0).utf8), field.fixField) }
    }

    /// The field a JSON key names, compared normalised; nil for any other key. Allocation-free: the key is
    /// normalised byte by byte as it is compared.
    static func field(ofKey key: UnsafeRawBufferPointer) -> FixField? {
        for entry in jsonKeys where matches(key, entry.name) { return entry.field }
        return nil
    }

    static func field(ofKey key: String) -> FixField? {
        var key = key
        return key.withUTF8 { field(ofKey: UnsafeRawBufferPointer($0)) }
    }

    /// The value of a field in a JSON object under any of its names; nil when it has none, an `ambiguous-field`
    /// problem when it has two.
    static func value(of field: FixField, in object: JSONValue) throws(FieldProblem) -> JSONValue? {
        guard case .object(let members) = object else { return nil }
        var found: (key: String, value: JSONValue)?
        for (key, v) in members where FieldAliases.field(ofKey: key) == field {
            if let found { throw FieldProblem.ambiguous(field, found.key, key) }
            found = (key, v)
        }
        return found?.value
    }

    @inline(__always)
    private static func matches(_ key: UnsafeRawBufferPointer, _ name: [UInt8]) -> Bool {
        var j = 0
        for c in key {
            if c == 32 || c == 95 || c == 45 || c == 46 || c == 9 { continue }
            guard j < name.count else { return false }
            let lower = c >= 65 && c <= 90 ? c + 32 : c
            guard lower == name[j] else { return false }
            j += 1
        }
        return j == name.count
    }
}

extension CSVField {
    var fixField: FixField {
        switch self {
        case .device: .device
        case .timestamp: .timestamp
        case .latitude: .latitude
        case .longitude: .longitude
        case .horizontalAccuracy: .accuracy
        case .altitude: .altitude
        case .speed: .speed
        case .course: .course
        }
    }
}
