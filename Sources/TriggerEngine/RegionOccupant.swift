/// A device inside (or dwelling into) a region, as the region query answers.
public struct RegionOccupant: Sendable, Hashable {
    public var device: String
    /// The request whose region it is (several requests may share a region id).
    public var identifier: String
    /// `inside`, or `entering` while a dwell time runs.
    public var phase: String
    public var since: Timestamp
}
