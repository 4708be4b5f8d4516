import TriggerEngine

/// Reads of the engine's present state for the query API. On the actor, so each answer is consistent with the
/// inputs evaluated so far (including those whose journal write is still in flight).
extension EngineHost {
    public func status(ofDevice name: String) -> DeviceStatus? { engine.status(ofDevice: name) }

    public func deviceStatuses(from start: Int, limit: Int) -> (statuses: [DeviceStatus], next: Int?) {
        engine.deviceStatuses(from: start, limit: limit)
    }

    /// What the engine decided at the device's recent inputs and why (nil: an unknown device).
    public func explain(device name: String, request: String?) -> DeviceExplanation? {
        engine.explain(device: name, request: request)
    }

    /// Whether a request is pending or was delivered (`repeats: false`): one the explain route may be asked about.
    public func knowsRequest(_ identifier: String) -> Bool {
        engine.request(identifier) != nil || engine.delivered.contains { $0.request.identifier == identifier }
    }

    /// Device groups with their members (proximity requests' subjects and targets).
    public func groups() -> [String: [String]] { engine.groups }

    /// The proximity pairs a device is part of, as they stand.
    public func proximityPairs(ofDevice name: String) -> [ProximityPairStatus] { engine.proximityPairs(ofDevice: name) }

    public func occupants(ofRegion regionID: String) -> [RegionOccupant]? { engine.occupants(ofRegion: regionID) }

    public func nearby(latitude: Double, longitude: Double, radius: Double, limit: Int) -> [NearbyDevice] {
        engine.nearby(latitude: latitude, longitude: longitude, radius: radius, limit: limit)
    }
}
