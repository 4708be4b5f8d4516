import Geometry

/// Decides which device entered or left which region, and renders the notifications (SPEC §3–§4).
///
/// Single-threaded by design: state is keyed by device, so a service scales by running one engine per shard of
/// devices. The type is a class without `Sendable`: its owner (a replay loop, or the server's engine task) is the
/// only one touching it. The `emit` closures must not call back into the engine.
public final class TriggerEngine {
    public struct Configuration: Sendable {
        public enum Clock: Sendable {
            /// Replay: the clock is the newest timestamp seen across all devices; silent devices' deadlines fire, and
            /// idle ones expire, by the watermark, the second-newest device time (`EngineCore+Watermark`).
            case eventTime
            /// Live: the host calls `advance(to:)` with wall time.
            case external
        }
        public var clock: Clock
        /// Forget devices with no activity for this many seconds (nil: keep forever). A device with a pending dwell
        /// or beacon-exit deadline is kept until the clock has settled it.
        public var idleDeviceExpiry: Double?
        /// What forgetting a device does to the geofences it is inside: nothing (false: no notification, the
        /// membership is gone), or an exit (true: `notifyOnExit` requests fire one, at the moment the device had
        /// been silent for `idleDeviceExpiry`, with its newest fix as evidence).
        public var expiryExits = false
        /// Fixes with horizontal accuracy up to this many metres need only one index cell per level.
        public var accuracyAllowance: Double
        /// Time is per device (docs/semantics.md "Time"): a device's own later input settles its pending dwell and
        /// beacon-exit deadlines. The clock fires a deadline only once it is this many seconds past it (with the
        /// external clock, past the device's last input too: the device has gone silent).
        /// nil: the clock never fires a deadline; only `finish` does (replay: the end of input).
        /// Default: nil for event time (replay), 60 s for an external (wall) clock.
        public var allowedLateness: Double?
        /// A fix or sighting more than this many seconds ahead of the clock is rejected as `future` and moves no
        /// clock (nil: no bound); with event time, ahead of both the watermark and the device's own newest input.
        /// Default: one year for event time (replay's trace files have gaps), 10 minutes ahead of wall time for an
        /// external clock.
        public var maximumFuture: Double?
        /// Keep each device's newest position (the service's device listing and nearby query); replay need not.
        public var keepsLastPosition = false
        /// Keep, per request, the devices that entered it, so a region's occupants are read without walking every
        /// device (the service's region query). Replay need not: noting each entry touches the request's list, a
        /// cache miss per notification with many requests (~6 % of a notification-dense run); without the lists the
        /// query walks the device records instead.
        public var tracksOccupants = false
        /// Keep each device's last this many inputs and decisions (an entry each, 32 bytes), so `explain` can say
        /// why a request did or did not fire (0: keep none, and the per-fix path pays nothing).
        public var explainDepth = 0
        /// Keep the inputs and decisions of this one device only, all of them until `drainExplanation` reads them
        /// (replay's `--explain`); overrides `explainDepth`.
        public var explainDevice: String?

        public static let defaultWallLateness = 60.0
        public static let defaultWallFuture = 600.0
        public static let defaultEventFuture = 366.0 * 86_400

        public init(clock: Clock = .eventTime, idleDeviceExpiry: Double? = nil, accuracyAllowance: Double = 50) {
            self.clock = clock
            self.idleDeviceExpiry = idleDeviceExpiry
            self.accuracyAllowance = accuracyAllowance
            switch clock {
            case .eventTime:
                allowedLateness = nil
                maximumFuture = Self.defaultEventFuture
            case .external:
                allowedLateness = Self.defaultWallLateness
                maximumFuture = Self.defaultWallFuture
            }
        }
    }

    public enum AddOutcome: Sendable, Equatable { case added, replaced }

    public enum Outcome: Sendable, Equatable {
        case evaluated
        case rejected(FixRejection)
    }

    public let configuration: Configuration
    /// All state, as one value: its mutating methods get static (not per-access dynamic) exclusivity checking.
    var core: EngineCore
    /// Entries of `Configuration.explainDevice` already handed out by `drainExplanation`.
    var drained: UInt64 = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.core = EngineCore(configuration: configuration)
    }

    public var statistics: EngineStatistics { core.statistics }
    /// The engine's clock (SPEC §3 "Time").
    public var now: Timestamp { core.now }
    /// Deadlines up to this time may have been fired by the clock (nil: the clock fires none, only `finish`).
    public var silentDeadlineLimit: Timestamp? {
        core.silentLimit
    }
    /// Number of pending (registered, not yet delivered) requests.
    public var pendingCount: Int { core.slotByIdentifier.count }
    public var deviceCount: Int { core.deviceTable.count }
    /// Stored pair states (pairs in their implied state take no memory).
    public var storedPairCount: Int { core.devices.reduce(0) { $0 + $1.pairs.count } }
    /// Requests with `repeats: false` that fired and left the pending set, in firing order.
    public var delivered: [DeliveredRequest] { core.delivered }

    /// Adds a request, or replaces the one with the same identifier; either way its per-device state starts afresh.
    @discardableResult
    public func add(_ request: NotificationRequest) throws(RequestError) -> AddOutcome { try core.add(request) }

    /// Adds many requests at once (a region file, a restart, a batch over HTTP): the spatial index is rebuilt once
    /// at the end instead of growing request by request. Stops at the first invalid request, keeping those before it.
    public func add(contentsOf requests: some Sequence<NotificationRequest>) throws(RequestError) {
        core.index.beginBatch()
        defer { core.index.endBatch() }
        core.reserve(additional: requests.underestimatedCount)
        for r in requests { try core.add(r) }
    }

    /// Runs `body`, which adds requests one at a time, with the spatial index rebuilt once at its end, as
    /// `add(contentsOf:)` does: for a caller that needs each request's outcome.
    public func addingInBatch<T>(_ body: () throws -> T) rethrows -> T {
        core.index.beginBatch()
        defer { core.index.endBatch() }
        return try body()
    }

    /// The pending request with this identifier.
    public func request(_ identifier: String) -> NotificationRequest? { core.request(identifier) }

    /// Pending requests, ordered by identifier.
    public var pendingRequests: [NotificationRequest] {
        core.slotByIdentifier.keys.sorted().compactMap { core.request($0) }
    }

    /// Removes pending requests; returns the identifiers that were pending.
    @discardableResult
    public func remove(identifiers: some Sequence<String>) -> [String] {
        identifiers.filter { core.removeSlot(identifier: $0) }
    }

    /// Removes every pending request (delivered records are kept).
    public func removeAll() {
        for id in Array(core.slotByIdentifier.keys) { _ = core.removeSlot(identifier: id) }
    }

    /// Evaluates one location fix against every request (SPEC §2–§3) and emits the notifications it causes,
    /// including any deadlines the clock passes on the way.
    @discardableResult
    public func process(_ fix: LocationFix, emit: (FiredNotification) -> Void) -> Outcome { core.process(fix, emit: emit) }

    /// Evaluates `fixes` in order, exactly as `process` one by one would, faster with many devices (the next fixes'
    /// device records are prefetched); `outcome` gets each fix's index in `fixes` and its outcome.
    public func process(batch fixes: UnsafeBufferPointer<LocationFix>, emit: (FiredNotification) -> Void,
                        outcome: (Int, Outcome) -> Void) {
        core.process(batch: fixes, emit: emit, outcome: outcome)
    }

    /// Evaluates one beacon sighting (SPEC §3 beacon regions).
    @discardableResult
    public func process(_ sighting: BeaconSighting, emit: (FiredNotification) -> Void) -> Outcome {
        core.process(sighting, emit: emit)
    }

    /// Moves the clock forward. Deadlines of devices that have gone silent (see `Configuration.allowedLateness`)
    /// fire, each at its own deadline, in deadline order per device. Returns whether more than the clock changed.
    @discardableResult
    public func advance(to time: Timestamp, emit: (FiredNotification) -> Void) -> Bool { core.advance(to: time, emit: emit) }

    /// The end of input (a replay's last record): every device is silent from here on, so every pending deadline up
    /// to the clock fires, whatever the allowed lateness. Deadlines beyond the clock stay pending.
    public func finish(emit: (FiredNotification) -> Void) { core.finish(emit: emit) }

    /// An observer says it is still listening at `time` without having heard anything (a live scanner's tick): its
    /// own beacon deadlines up to `time` are settled, as a sighting at `time` would settle them.
    public func observerListening(device: String, at time: Timestamp, emit: (FiredNotification) -> Void) {
        core.observerListening(device: device, at: time, emit: emit)
    }

    /// Records that an observer started listening at `time` (a scanner coming up): a beacon it first hears within
    /// the initial scan window (2 s, or the request's `exitTimeout` if shorter) was there already, silent unless
    /// `initialTrigger`; one it first hears later arrived, an entry (docs/semantics.md "Beacons").
    public func observerStarted(device: String, at time: Timestamp) { core.observerStarted(device: device, at: time) }

    /// The device's earliest pending dwell or beacon-exit deadline, if any.
    public func nextDeadline(ofDevice name: String) -> Timestamp? {
        core.existingDevice(name).flatMap { core.nextDeadline(device: $0)?.deadline }
    }

    /// A device's standing with the requests it is in.
    public func status(ofDevice name: String) -> DeviceStatus? { core.status(ofDevice: name) }
}

/// A `repeats: false` request that has fired and left the pending set.
public struct DeliveredRequest: Sendable, Hashable {
    public var request: NotificationRequest
    public var deliveredAt: Timestamp
    public var device: String
}
