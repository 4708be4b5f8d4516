/// One position report of one device (SPEC §2). A value type: the engine's hot path copies it, never boxes it.
public struct LocationFix: Hashable, Sendable {
    public var device: String
    public var timestamp: Timestamp
    public var latitude: Double
    public var longitude: Double
    /// Horizontal accuracy in metres, 68 % radius; nil when the source gives none (treated as 0).
    public var horizontalAccuracy: Double?
    public var altitude: Double?
    /// Metres per second.
    public var speed: Double?
    /// Degrees clockwise from true north.
    public var course: Double?

    public init(
        device: String, timestamp: Timestamp, latitude: Double, longitude: Double,
        horizontalAccuracy: Double? = nil, altitude: Double? = nil, speed: Double? = nil, course: Double? = nil
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

    /// Why a fix cannot be evaluated, or nil when it is valid (SPEC §2 "Invalid input").
    public var invalidity: FixRejection? {
        withUnsafePointer(to: self) { Self.invalidity(of: $0) }
    }

    /// `invalidity` of the fix at `fix`, read field by field where it lies (the engine's batches: a method called
    /// on `pointee` copies the whole fix first).
    @inline(__always)
    static func invalidity(of fix: UnsafePointer<LocationFix>) -> FixRejection? {
        if fix.pointee.device.isEmpty { return .missingDevice }
        let latitude = fix.pointee.latitude, longitude = fix.pointee.longitude
        if !latitude.isFinite || !longitude.isFinite { return .notANumber }
        if latitude < -90 || latitude > 90 { return .latitudeOutOfRange }
        if longitude < -180 || longitude > 180 { return .longitudeOutOfRange }
        if let a = fix.pointee.horizontalAccuracy, !(a >= 0) || !a.isFinite { return .negativeAccuracy }
        if fix.pointee.altitude?.isFinite == false || fix.pointee.speed?.isFinite == false
            || fix.pointee.course?.isFinite == false { return .notANumber }
        return nil
    }
}

/// The reasons a fix or sighting is refused or dropped; each is counted separately.
public enum FixRejection: String, Sendable, CaseIterable, CustomStringConvertible {
    case missingDevice = "missing-device"
    case notANumber = "not-a-number"
    case latitudeOutOfRange = "latitude-out-of-range"
    case longitudeOutOfRange = "longitude-out-of-range"
    case negativeAccuracy = "invalid-accuracy"
    case invalidTimestamp = "invalid-timestamp"
    case late = "late"
    case duplicate = "duplicate"
    case future = "future"

    public var description: String {
        switch self {
        case .missingDevice: "the device id is missing or empty"
        case .notANumber: "latitude, longitude, altitude, speed or course is not a finite number"
        case .latitudeOutOfRange: "latitude is outside [-90, 90]"
        case .longitudeOutOfRange: "longitude is outside [-180, 180]"
        case .negativeAccuracy: "horizontal accuracy is negative or not a finite number"
        case .invalidTimestamp: "the timestamp cannot be read"
        case .late: "older than the newest fix already processed for this device"
        case .duplicate: "an exact duplicate of the previous fix"
        case .future: "further ahead of the clock than the allowed bound (--max-future)"
        }
    }
}
