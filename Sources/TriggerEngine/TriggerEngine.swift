import Geometry
import HeapModule

/// Decides which device entered or left which region, and renders the notifications (SPEC §3–§4).
///
/// Single-threaded by design: state is keyed by device, so a service scales by running one engine per shard of
/// devices. The type is a class without `Sendable`: its owner (a replay loop, or the server's engine task) is the
/// only one touching it.
public final class TriggerEngine {
    public struct Configuration: Sendable {
        public enum Clock: Sendable {
            /// Replay: the clock is the newest timestamp seen; dwell and beacon deadlines fire as it passes them.
            case eventTime
            /// Live: the host calls `advance(to:)` with wall time.
            case external
        }
        public var clock: Clock
        /// Forget devices with no activity for this many seconds (nil: keep forever).
        public var idleDeviceExpiry: Double?
        /// Fixes with horizontal accuracy up to this many metres need only one index cell per level.
        public var accuracyAllowance: Double

        public init(clock: Clock = .eventTime, idleDeviceExpiry: Double? = nil, accuracyAllowance: Double = 50) {
            self.clock = clock
            self.idleDeviceExpiry = idleDeviceExpiry
            self.accuracyAllowance = accuracyAllowance
        }
    }

    public let configuration: Configuration
    public internal(set) var statistics = EngineStatistics()
    /// The engine's clock (SPEC §3 "Time").
    public internal(set) var now = Timestamp.distantPast

    // Requests, by slot. Hot numbers in `geometry`, cold data in `compiled`.
    var compiled: [CompiledRequest?] = []
    var geometry: [SlotGeometry] = []
    var polygonLocators: [PolygonLocator?] = []
    var slotGenerations: [UInt32] = []
    var freeSlots: [Int32] = []
    var slotByIdentifier: [String: Int32] = [:]
    var index: RegionIndex
    var beaconSlotsByUUID: [UUID128: [Int32]] = [:]
    var beaconSlotsByNamespace: [EddystoneNamespace: [Int32]] = [:]
    var generation: UInt64 = 0
    var revisionCounter: UInt64 = 0
    /// Requests with `repeats: false` that fired, by identifier, in firing order.
    public internal(set) var delivered: [DeliveredRequest] = []
    var deliveredIndex: [String: Int] = [:]

    // Devices.
    var deviceByName: [String: Int32] = [:]
    var devices: [DeviceRecord] = []
    var freeDevices: [Int32] = []
    var lastSweep = Timestamp.distantPast

    // Deadlines (dwell, beacon exit).
    var timers = Heap<TimerEntry>()

    // Per-fix scratch, reused: the hot path allocates nothing.
    var candidates: [Int32] = []
    var slotStamp: [UInt32] = []
    var stamp: UInt32 = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.index = RegionIndex(accuracyAllowance: configuration.accuracyAllowance)
        candidates.reserveCapacity(256)
    }

    /// Number of pending (registered, not yet delivered) requests.
    public var pendingCount: Int { slotByIdentifier.count }
    public var deviceCount: Int { deviceByName.count }
    /// Stored pair states (pairs in their implied state take no memory).
    public var storedPairCount: Int { devices.reduce(0) { $0 + $1.pairs.count } }
}

/// A `repeats: false` request that has fired and left the pending set.
public struct DeliveredRequest: Sendable, Hashable {
    public var request: NotificationRequest
    public var deliveredAt: Timestamp
    public var device: String
}
