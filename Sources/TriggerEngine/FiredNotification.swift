/// A fired notification request, as handed to the scheduler (SPEC §4).
///
/// A notification from the engine keeps the firing it came from (the compiled request, the device, the time and
/// the evidence) and renders its fields when they are read, or writes its JSON straight from the firing: building
/// every String of it first (templates filled in, the deliveryId) was most of what a notification cost, and most
/// notifications are only ever written once (`writeJSON`). Setting a field turns it into plain fields.
public struct FiredNotification: Sendable, Hashable {
    public enum Event: String, Sendable { case entry, exit }

    enum Storage: Sendable {
        /// Boxed: inline, every notification was the size of all these fields (384 bytes), copied by value at each
        /// hand-over, though one from the engine holds a firing until a field is set.
        indirect case fields(Fields)
        case firing(Firing)
    }

    /// Every field, as built in code or rendered from a firing.
    struct Fields: Sendable, Hashable {
        var identifier: String
        var deliveryId: String
        var content: NotificationContent
        var event: Event
        var repeats: Bool
        var regionType: String
        var regionID: String
        var regionName: String?
        var device: String
        var fix: FixSnapshot?
        var beacon: BeaconSnapshot?
        var nearby: NearbySnapshot? = nil
        var firedAt: Timestamp
    }

    /// What the engine knows when a request fires; the fields follow from it (`rendered`).
    struct Firing: Sendable {
        /// The request's notification compiled (and the request itself, `plan.compiled`).
        let plan: NotificationPlan
        let device: String
        let event: Event
        let firedAt: Timestamp
        /// The device's k-th notification at `firedAt` (part of the deliveryId when > 1).
        let ordinal: UInt32
        let fix: FixSnapshot?
        let beacon: BeaconSnapshot?
        /// Proximity requests: the other device.
        let nearby: NearbySnapshot?

        var compiled: CompiledRequest { plan.compiled }
    }

    var storage: Storage

    public init(identifier: String, deliveryId: String, content: NotificationContent, event: Event, repeats: Bool,
                regionType: String, regionID: String, regionName: String?, device: String, fix: FixSnapshot?,
                beacon: BeaconSnapshot?, nearby: NearbySnapshot? = nil, firedAt: Timestamp) {
        storage = .fields(Fields(identifier: identifier, deliveryId: deliveryId, content: content, event: event,
                                 repeats: repeats, regionType: regionType, regionID: regionID, regionName: regionName,
                                 device: device, fix: fix, beacon: beacon, nearby: nearby, firedAt: firedAt))
    }

    init(_ firing: Firing) { storage = .firing(firing) }

    var fields: Fields {
        switch storage {
        case .fields(let f): return f
        case .firing(let g): return g.rendered
        }
    }

    /// Sets one field: the notification keeps plain fields from then on.
    private mutating func update(_ change: (inout Fields) -> Void) {
        var f = fields
        change(&f)
        storage = .fields(f)
    }

    public var identifier: String {
        get { if case .firing(let g) = storage { return g.plan.identifier }; return fields.identifier }
        set { update { $0.identifier = newValue } }
    }

    /// Stable and unique per firing: `identifier/device/revision-n`, the scheduler's idempotency key.
    public var deliveryId: String {
        get { if case .firing(let g) = storage { return g.deliveryId }; return fields.deliveryId }
        set { update { $0.deliveryId = newValue } }
    }

    public var content: NotificationContent {
        get { if case .firing(let g) = storage { return g.content }; return fields.content }
        set { update { $0.content = newValue } }
    }

    public var event: Event {
        get { if case .firing(let g) = storage { return g.event }; return fields.event }
        set { update { $0.event = newValue } }
    }

    public var repeats: Bool {
        get { if case .firing(let g) = storage { return g.plan.repeats }; return fields.repeats }
        set { update { $0.repeats = newValue } }
    }

    public var regionType: String {
        get { if case .firing(let g) = storage { return g.compiled.regionTypeName }; return fields.regionType }
        set { update { $0.regionType = newValue } }
    }

    public var regionID: String {
        get { if case .firing(let g) = storage { return g.plan.regionID }; return fields.regionID }
        set { update { $0.regionID = newValue } }
    }

    public var regionName: String? {
        get { if case .firing(let g) = storage { return g.compiled.request.trigger.region.name }; return fields.regionName }
        set { update { $0.regionName = newValue } }
    }

    public var device: String {
        get { if case .firing(let g) = storage { return g.device }; return fields.device }
        set { update { $0.device = newValue } }
    }

    public var fix: FixSnapshot? {
        get { if case .firing(let g) = storage { return g.fix }; return fields.fix }
        set { update { $0.fix = newValue } }
    }

    public var beacon: BeaconSnapshot? {
        get { if case .firing(let g) = storage { return g.beacon }; return fields.beacon }
        set { update { $0.beacon = newValue } }
    }

    public var nearby: NearbySnapshot? {
        get { if case .firing(let g) = storage { return g.nearby }; return fields.nearby }
        set { update { $0.nearby = newValue } }
    }

    public var firedAt: Timestamp {
        get { if case .firing(let g) = storage { return g.firedAt }; return fields.firedAt }
        set { update { $0.firedAt = newValue } }
    }

    /// Equal when every field is: a notification from a firing equals the same one built field by field.
    public static func == (a: FiredNotification, b: FiredNotification) -> Bool { a.fields == b.fields }

    public func hash(into hasher: inout Hasher) { fields.hash(into: &hasher) }
}

/// The fix behind a notification.
public struct FixSnapshot: Sendable, Hashable {
    public var timestamp: Timestamp
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double?

    public init(timestamp: Timestamp, latitude: Double, longitude: Double, horizontalAccuracy: Double?) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
    }
}

/// The sighting behind a beacon notification.
public struct BeaconSnapshot: Sendable, Hashable {
    public var timestamp: Timestamp
    public var identity: BeaconIdentity
    public var rssi: Int?
    public var proximity: Proximity
    public var distance: Double?
    public var address: String?
}
