/// The service's questions about the present (see `EngineCore+Queries`).
extension TriggerEngine {
    /// One page of live devices in record order; pass `next` back as `start` for the following page.
    public func deviceStatuses(from start: Int, limit: Int) -> (statuses: [DeviceStatus], next: Int?) {
        core.deviceStatuses(from: start, limit: limit)
    }

    /// Devices inside every request whose region has this id; nil when no pending request has that region.
    public func occupants(ofRegion regionID: String) -> [RegionOccupant]? { core.occupants(ofRegion: regionID) }

    /// Devices whose newest fix lies within `radius` metres, nearest first (needs `keepsLastPosition`).
    public func nearby(latitude: Double, longitude: Double, radius: Double, limit: Int) -> [NearbyDevice] {
        core.nearby(latitude: latitude, longitude: longitude, radius: radius, limit: limit)
    }
}
