/// The names a format gives the fix fields, used in error reports so they name what the user wrote.
struct FixFieldNames: Sendable, PerFixField {
    var device, timestamp, latitude, longitude, accuracy, altitude, speed, course: String

    static let spec = FixFieldNames(
        device: "device", timestamp: "timestamp", latitude: "latitude", longitude: "longitude",
        accuracy: "horizontalAccuracy", altitude: "altitude", speed: "speed", course: "course")
}

/// A fix field, named only when an error is reported, so the hot path never copies the names. The raw value is
/// `FlatJSONScanner.fieldIndex`'s.
enum FixField: UInt8 {
    case device, timestamp, latitude, longitude, accuracy, altitude, speed, course
}

/// How a format's values are read.
struct FixRules: Sendable {
    enum Timestamps: Sendable {
        /// RFC 3339 text, or Unix seconds / milliseconds (values above 1e11 are milliseconds).
        case flexible
        /// Integer Unix seconds only (OwnTracks `tst`).
        case unixSecondsInteger
    }

    var names: FixFieldNames
    var timestamps: Timestamps = .flexible
    /// CSV cells are text; JSON formats require real numbers.
    var numbersFromText = false
    /// Text numbers may have a decimal comma (`48,8566`): `;`-separated CSV, as spreadsheets write it where the comma
    /// is the decimal separator.
    var decimalComma = false
    /// Multiplier from the format's speed unit to m/s.
    var speedScale = 1.0
    /// Some producers write a negative or zero accuracy for "unknown" (OwnTracks -1, Traccar 0).
    var nonPositiveAccuracyIsUnknown = false
}
