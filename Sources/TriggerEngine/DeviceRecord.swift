/// What a fix needs of its device, in exactly one 64-byte cache line (with many devices, each fix's device is a
/// cache miss: this keeps it to one).
struct DeviceRecord {
    var name: String
    /// Newest fix processed (ordering and duplicate checks); `distantPast` before the first.
    var lastFixTime = Timestamp.distantPast
    /// Bits of the newest fix's position and accuracy, to recognise an exact duplicate at the same timestamp.
    var lastFixFingerprint: UInt64 = 0
    /// Request-set generation at the last evaluated fix.
    var lastGeneration: UInt64 = 0
    var pairs: ContiguousArray<PairState> = []
    var cellCache = RegionIndex.CellCache()

    init(name: String) { self.name = name }

    var hasFix: Bool { lastFixTime > .distantPast }

    static func fingerprint(latitude: Double, longitude: Double, accuracy: Double) -> UInt64 {
        var h = latitude.bitPattern &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ longitude.bitPattern) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ accuracy.bitPattern) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 31)
    }
}

/// The colder part of a device: beacon observation times. Kept in a parallel array.
struct ObserverRecord {
    /// Newest sighting processed.
    var lastSightingTime = Timestamp.distantPast
    /// Since when this observer has been listening (first sighting, or when its scanner started).
    var observingSince = Timestamp.distantFuture
    /// The clock when the device's last input (fix, sighting or listening tick) was processed: the clock fires
    /// the device's deadlines only once it is `allowedLateness` past this too (the device has gone silent).
    var lastArrival = Timestamp.distantPast
    /// The time of the device's newest notification and how many it had at exactly that time: `deliveryId` is
    /// built from them, so it depends on the device's own timeline only, never on how devices interleave.
    var lastFiring = Timestamp.distantPast
    var firingOrdinal: UInt32 = 0
    /// The device's explain history ring (`ExplainHistory`), -1 for none; in the padding after the ordinal.
    var explainRing: Int32 = -1
    /// Entries written to that ring since it was handed out (the newest is at `(count - 1) % depth`).
    var explainWritten: UInt64 = 0
    /// The newest fix's position (NaN before the first; accuracy NaN when the fix had none). Kept only when the
    /// configuration asks (`serve`, for the device listing and the nearby query): replay never reads it, and for
    /// replay this record would be one more cache miss per fix.
    var lastLatitude = Double.nan
    var lastLongitude = Double.nan
    var lastAccuracy = Double.nan

    var lastPosition: DevicePosition? {
        lastLatitude.isNaN ? nil
            : DevicePosition(latitude: lastLatitude, longitude: lastLongitude, horizontalAccuracy: lastAccuracy.isNaN ? nil : lastAccuracy)
    }
}
