/// One device's position in time and its stored pair states.
struct DeviceRecord {
    var name: String
    /// Newest fix processed (ordering and duplicate checks).
    var lastFixTime = Timestamp.distantPast
    var lastLatitude = Double.nan
    var lastLongitude = Double.nan
    var lastAccuracy = -1.0
    /// Request-set generation at the last evaluated fix.
    var lastGeneration: UInt64 = 0
    var hasFix = false
    /// Newest sighting processed (observers).
    var lastSightingTime = Timestamp.distantPast
    /// Since when this observer has been listening (first sighting, or when its scanner started).
    var observingSince = Timestamp.distantFuture
    /// Last activity of any kind, for idle expiry.
    var lastActivity = Timestamp.distantPast
    var pairs: ContiguousArray<PairState> = []
    var cellCache = RegionIndex.CellCache()

    init(name: String) { self.name = name }
}
