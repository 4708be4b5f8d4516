/// How near a beacon is, from smoothed RSSI and its calibrated txPower (SPEC §3).
public enum Proximity: String, Sendable, Comparable, CaseIterable {
    case immediate, near, far, unknown

    /// `immediate` < 0.5 m, `near` < 3 m, else `far`; `unknown` when the distance could not be estimated.
    public init(distance: Double?) {
        guard let d = distance, d.isFinite, d >= 0 else { self = .unknown; return }
        self = d < 0.5 ? .immediate : d < 3 ? .near : .far
    }

    private var rank: Int {
        switch self {
        case .immediate: 0
        case .near: 1
        case .far: 2
        case .unknown: 3
        }
    }
    public static func < (a: Proximity, b: Proximity) -> Bool { a.rank < b.rank }

    /// Whether a beacon at this proximity satisfies a region that requires `required` or closer.
    public func satisfies(_ required: Proximity?) -> Bool {
        guard let required else { return true }
        return self != .unknown && self <= required
    }
}

/// Frame contents that are not an identity: Eddystone-URL and Eddystone-TLM (SPEC §2: decoded and passed on).
public struct BeaconTelemetry: Hashable, Sendable {
    public var url: String?
    public var batteryMilliVolts: Int?
    public var temperatureCelsius: Double?
    public var advertisementCount: UInt32?
    /// Time since power-on, in seconds (the TLM field counts tenths).
    public var uptimeSeconds: Double?
    /// Eddystone-EID: the rotating ephemeral id, passed through as hex.
    public var ephemeralId: String?

    public init(url: String? = nil, batteryMilliVolts: Int? = nil, temperatureCelsius: Double? = nil,
                advertisementCount: UInt32? = nil, uptimeSeconds: Double? = nil, ephemeralId: String? = nil) {
        self.url = url
        self.batteryMilliVolts = batteryMilliVolts
        self.temperatureCelsius = temperatureCelsius
        self.advertisementCount = advertisementCount
        self.uptimeSeconds = uptimeSeconds
        self.ephemeralId = ephemeralId
    }
}

/// One reception of one beacon advertisement by one observer (SPEC §2).
public struct BeaconSighting: Hashable, Sendable {
    /// The observer: the gateway or phone that heard the beacon.
    public var device: String
    public var timestamp: Timestamp
    /// nil for frames that carry only telemetry (Eddystone-URL/TLM).
    public var identity: BeaconIdentity?
    /// dBm; nil when the controller reported none (HCI's 127).
    public var rssi: Int?
    /// Calibrated power at 1 m, dBm.
    public var txPower: Int?
    /// The advertiser's BD_ADDR, upper-case colon form.
    public var address: String?
    public var telemetry: BeaconTelemetry?
    /// Estimated from smoothed RSSI and txPower by the Beacons module; `unknown` when it could not be.
    public var proximity: Proximity
    /// Estimated distance in metres, when known.
    public var distance: Double?

    public init(device: String, timestamp: Timestamp, identity: BeaconIdentity?, rssi: Int?, txPower: Int?,
                address: String? = nil, telemetry: BeaconTelemetry? = nil, proximity: Proximity = .unknown,
                distance: Double? = nil) {
        self.device = device
        self.timestamp = timestamp
        self.identity = identity
        self.rssi = rssi
        self.txPower = txPower
        self.address = address
        self.telemetry = telemetry
        self.proximity = proximity
        self.distance = distance
    }
}
