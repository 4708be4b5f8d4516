/// A proximity pair as it stands (`TriggerEngine.proximityPairs(ofDevice:)`): which request, which two devices,
/// its phase and how far apart their newest decided positions are.
public struct ProximityPairStatus: Sendable, Hashable {
    public var request: String
    public var regionID: String
    public var subject: String
    public var target: String
    /// `inside`, `entering` (dwell running), `outside` (remembered for `minimumInterval`) or `unknown`.
    public var phase: String
    public var since: Timestamp
    public var distance: Double
    public var dwellUntil: Timestamp?
}
