/// A region that moves with other devices (docs/semantics.md "Proximity"): a circle of `radius` metres around each
/// target device's newest position. Each (subject, target) pair is its own state machine, with the trigger's entry,
/// exit, dwell, hysteresis, accuracy and interval rules.
public struct ProximityRegion: Hashable, Sendable {
    /// Metres between the two devices at which the pair is inside.
    public var radius: Double
    /// The devices the circles move with.
    public var targets: DeviceSelector
    /// The devices tested against the targets; nil: the trigger's `devices` (every device when that is absent too).
    public var subjects: DeviceSelector?
    /// Seconds a position counts as evidence: a pair is decided only while both devices' newest positions are at
    /// most this old, at the moment of the input being evaluated.
    public var maxAge: Double

    public static let defaultMaxAge = 300.0

    public init(radius: Double, targets: DeviceSelector, subjects: DeviceSelector? = nil, maxAge: Double = ProximityRegion.defaultMaxAge) {
        self.radius = radius
        self.targets = targets
        self.subjects = subjects
        self.maxAge = maxAge
    }
}

/// A set of devices: listed by id, or a named group (`TriggerEngine.setGroup`), resolved whenever groups change.
public enum DeviceSelector: Hashable, Sendable {
    case devices([String])
    case group(String)

    /// The devices it selects under `groups` (an unknown group selects none until it is defined).
    func resolve(_ groups: [String: Set<String>]) -> Set<String> {
        switch self {
        case .devices(let list): Set(list)
        case .group(let name): groups[name] ?? []
        }
    }
}
