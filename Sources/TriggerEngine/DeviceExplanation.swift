/// What the engine decided at a device's recent inputs and why (docs/why.md): for each input, whether it was
/// refused and, if evaluated, where it stood against each request near it (or the one asked about) and what that
/// did: entered, exited, a dwell started or cancelled, a notification fired or held back by `minimumInterval`,
/// a one-shot request delivered. Requests are read as they are now.
public struct DeviceExplanation: Sendable, Equatable {
    public var device: String
    /// The request asked about, if one was.
    public var request: String?
    /// Inputs (and clock actions) oldest first.
    public var inputs: [ExplainedInput]
    /// Older inputs and events the history no longer holds (it keeps `explainDepth` entries per device).
    public var omitted: UInt64
    /// Whether the engine keeps a history for this device at all (off: `explainDepth` 0).
    public var recorded: Bool
    /// The device's present standing with each request it has state for.
    public var standing: [RequestStanding]
    /// The asked-about request, when it is a `repeats: false` one that already fired and left the pending set.
    public var delivered: DeliveredRequest?
}

public struct ExplainedInput: Sendable, Equatable {
    public enum Kind: String, Sendable { case fix, sighting, clock }
    public var kind: Kind
    public var time: Timestamp
    public var latitude: Double?
    public var longitude: Double?
    public var horizontalAccuracy: Double?
    /// A sighting's signal strength.
    public var rssi: Double?
    /// Why the engine refused the input, if it did.
    public var refused: FixRejection?
    public var decisions: [Decision]
}

/// One request's side of one input.
public struct Decision: Sendable, Equatable {
    public enum Standing: String, Sendable {
        case inside, outside, uncertain
        /// `maximumAccuracy` is smaller than the fix's accuracy: the request ignores the fix.
        case accuracyTooLow = "accuracy-too-low"
        /// The request is limited to other devices.
        case outOfScope = "out-of-scope"
        /// A beacon region: fixes do not bear on it (and sightings are decided by identity).
        case notApplicable = "not-applicable"
        /// The request was removed or replaced since (or fired once and left, `repeats: false`).
        case removed
    }

    public enum Outcome: String, Sendable {
        /// Nothing changed (already in that state, or uncertain: the previous state holds).
        case unchanged
        case entered
        /// Inside from the device's first fix: the initial state, which notifies only with `initialTrigger`.
        case initiallyInside = "initially-inside"
        case dwellStarted = "dwell-started"
        case dwellCancelled = "dwell-cancelled"
        case dwellCompleted = "dwell-completed"
        case exited
    }

    public var request: String
    public var region: String?
    public var standing: Standing
    /// Metres from the region's edge, positive inside (circles and polygons).
    public var distanceToEdge: Double?
    /// The uncertainty band: the fix's accuracy plus the request's hysteresis; inside or outside only beyond it.
    public var band: Double?
    public var outcome: Outcome
    /// Whether a notification was emitted.
    public var fired: Bool
    /// Held back by `minimumInterval` until this time.
    public var suppressedUntil: Timestamp?
    /// A dwell started: the entry notifies at this time if the device stays.
    public var dwellUntil: Timestamp?
    /// A `repeats: false` request fired and left the pending set.
    public var delivered: Bool
    /// The whole decision as a sentence.
    public var reason: String
}

/// Where a device stands now with one request it has state for.
public struct RequestStanding: Sendable, Equatable {
    public var request: String
    public var region: String
    /// `inside`, `entering` (a dwell runs), `outside` or `unknown`.
    public var phase: String
    public var since: Timestamp
    public var dwellUntil: Timestamp?
    /// `minimumInterval` holds notifications back until this time.
    public var quietUntil: Timestamp?
    public var lastFired: Timestamp?
}
