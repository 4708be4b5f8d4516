import Geometry
import HeapModule

/// The engine's whole state. Hot per-slot numbers sit in flat arrays of plain values; cold request data is a class
/// reference read only when a notification is rendered.
struct EngineCore {
    let configuration: TriggerEngine.Configuration
    var statistics = EngineStatistics()
    var now = Timestamp.distantPast

    // Requests, by slot.
    var compiled: [CompiledRequest?] = []
    /// The templates of the request added last, for the next add whose content strings are the same.
    var lastTemplates: CompiledTemplates?
    /// By slot: notifications fired for the request (persisted with it). Kept out of `CompiledRequest`, which
    /// stays immutable so that notifications can carry it to other threads and render from it there.
    var firingCounts: [UInt64] = []
    /// By slot: the request's notification plan, once it has fired; nil again when the slot is reused or restored.
    var plans: [NotificationPlan?] = []
    var slots: [SlotGeometry] = []
    /// By slot: a polygon's locator, which owns the memory its grid reads.
    var polygonLocators: [PolygonLocator?] = []
    /// By slot: the locator's grid (`PolygonGrid.empty` for other regions), what the per-fix path reads: one cache
    /// line, with no object to load or reference to count first.
    var polygonGrids = CacheAlignedArray<PolygonGrid>()
    var slotGenerations: [UInt32] = []
    var freeSlots: [Int32] = []
    var slotByIdentifier: [String: Int32] = [:]
    var index: RegionIndex
    var beaconSlotsByUUID: [UUID128: [Int32]] = [:]
    var beaconSlotsByNamespace: [EddystoneNamespace: [Int32]] = [:]
    var generation: UInt64 = 0
    var revisionCounter: UInt64 = 0
    var delivered: [DeliveredRequest] = []
    /// Slots by region id (several requests may share a region), for the region query.
    var slotsByRegion: [String: [Int32]] = [:]
    /// By slot: devices that became inside or entering since the list was last compacted. The region query checks
    /// each against its pair, so exits, removed requests and freed devices cost the hot path nothing.
    var occupantCandidates: [[Int32]] = []
    /// By slot: the list's length at which it is next compacted (twice its live length, at least 64).
    var occupantCompactAt: [Int] = []
    var deliveredIndex: [String: Int] = [:]

    // Devices.
    var deviceTable = DeviceTable()
    var devices = CacheAlignedArray<DeviceRecord>()
    var observers: [ObserverRecord] = []
    var freeDevices: [Int32] = []
    var lastSweep = Timestamp.distantPast
    /// Event time: the newest activity time of any device (`leaderTime`, of device `leader`) and of any other
    /// device (`quorumTime`, the watermark that fires silent devices' deadlines): one device cannot move it alone.
    var leader: Int32 = -1
    var leaderTime = Timestamp.distantPast
    var quorumTime = Timestamp.distantPast

    /// Proximity requests' devices, pairs and queued fixes (`EngineCore+Proximity`).
    var proximity = ProximityState()

    // Deadlines (dwell, beacon exit).
    var timers = Heap<TimerEntry>()

    /// Recent inputs and decisions, for explanations (off unless configured).
    var explain: ExplainHistory
    /// Scratch for `settle`: the deadlines of one device that are due.
    var due: [TimerEntry] = []

    // Per-fix scratch, reused: the hot path allocates nothing.
    var candidates: [Int32] = []
    var slotStamp: [UInt32] = []
    var stamp: UInt32 = 0
    /// Where the candidates' first loads land (`touchCandidates`), so the optimizer keeps them.
    var touched: UInt8 = 0
    /// The index's `cacheEpoch` the devices' cell caches were last cleared for.
    var cellCacheEpoch = 0
    /// The configuration's spans in microseconds, converted once: every fix reads them, and converting seconds
    /// (`Timestamp.Duration(seconds:)`) per fix was 4 % of `serve`'s engine thread.
    let allowedLateness: Timestamp.Duration?
    let maximumFuture: Timestamp.Duration?
    let idleDeviceExpiry: Timestamp.Duration?
    /// How often idle devices are swept: a quarter of the expiry, at least a second.
    let idleSweepPeriod: Timestamp.Duration?

    init(configuration: TriggerEngine.Configuration) {
        self.configuration = configuration
        allowedLateness = configuration.allowedLateness.map { Timestamp.Duration(seconds: $0) }
        maximumFuture = configuration.maximumFuture.map { Timestamp.Duration(seconds: $0) }
        idleDeviceExpiry = configuration.idleDeviceExpiry.map { Timestamp.Duration(seconds: $0) }
        idleSweepPeriod = configuration.idleDeviceExpiry.map { Timestamp.Duration(seconds: max(1, $0 / 4)) }
        self.index = RegionIndex(accuracyAllowance: configuration.accuracyAllowance)
        self.explain = ExplainHistory(mode: configuration.explainDevice.map { .device($0) } ?? .every(depth: configuration.explainDepth))
        candidates.reserveCapacity(256)
    }
}
