/// A device's standing with the requests it is in (for `GET /v1/devices/{id}` and reports).
public struct DeviceStatus: Sendable, Hashable {
    public struct Membership: Sendable, Hashable {
        public var identifier: String
        public var regionID: String
        /// `inside`, or `entering` while a dwell time runs.
        public var phase: String
        public var since: Timestamp
    }
    public var device: String
    public var lastFix: Timestamp?
    public var lastSighting: Timestamp?
    /// The newest fix's position, when the engine keeps it (`Configuration.keepsLastPosition`).
    public var lastPosition: DevicePosition?
    public var memberships: [Membership]
}

extension EngineCore {
    func status(ofDevice name: String) -> DeviceStatus? {
        existingDevice(name).map { status(at: Int($0)) }
    }

    func status(at d: Int) -> DeviceStatus {
        let dev = devices[d], o = observers[d]
        var memberships: [DeviceStatus.Membership] = []
        for p in dev.pairs where p.phase == .inside || p.phase == .entering {
            guard slotGenerations[Int(p.slot)] == p.slotGeneration, let c = compiled[Int(p.slot)] else { continue }
            memberships.append(.init(identifier: c.request.identifier, regionID: c.request.trigger.region.id,
                                     phase: p.phase == .inside ? "inside" : "entering", since: p.since))
        }
        memberships.sort { $0.identifier < $1.identifier }
        return DeviceStatus(device: dev.name, lastFix: dev.hasFix ? dev.lastFixTime : nil,
                            lastSighting: o.lastSightingTime > .distantPast ? o.lastSightingTime : nil,
                            lastPosition: o.lastPosition, memberships: memberships)
    }
}
