/// Device groups and proximity pairs (docs/semantics.md "Proximity").
extension TriggerEngine {
    /// Defines or redefines a group (an empty list keeps the name with no members). Proximity requests naming it
    /// take the new members from the next input on; pairs of devices no longer selected keep their state, undecided.
    public func setGroup(_ name: String, devices: some Sequence<String>) {
        core.proximity.groups[name] = Set(devices)
        core.proximity.needsRebuild = true
    }

    /// Removes a group; returns whether it existed.
    @discardableResult
    public func removeGroup(_ name: String) -> Bool {
        guard core.proximity.groups.removeValue(forKey: name) != nil else { return false }
        core.proximity.needsRebuild = true
        return true
    }

    /// Every group with its members, sorted.
    public var groups: [String: [String]] { core.proximity.groups.mapValues { $0.sorted() } }

    /// The stored pairs a device is part of (as subject or target): inside, entering, or remembered outside.
    public func proximityPairs(ofDevice name: String) -> [ProximityPairStatus] { core.proximityPairs(ofDevice: name) }

    /// Proximity inputs queued until the watermark passes them.
    public var pendingProximityInputs: Int { core.proximity.pending.count }
}
