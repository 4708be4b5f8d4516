/// Counters the engine keeps; the service exports them as metrics and `replay` prints them.
public struct EngineStatistics: Sendable, Hashable {
    public var fixesEvaluated = 0
    public var sightingsEvaluated = 0
    /// Telemetry-only beacon frames (Eddystone-URL/TLM): accepted, no region effect.
    public var telemetryFrames = 0
    public var rejected: [FixRejection: Int] = [:]
    public var entries = 0
    public var exits = 0
    public var notifications = 0
    public var suppressedByMinimumInterval = 0
    public var dwellsCancelled = 0
    public var devicesExpired = 0
    /// Times the device records were moved to smaller arrays after most of them were forgotten.
    public var deviceCompactions = 0
    public var candidateTests = 0
    /// Fixes queued for proximity rules, and those that came after their moment was decided (counted, not decided).
    public var proximityInputs = 0
    public var proximityLate = 0

    public var rejectedTotal: Int { rejected.values.reduce(0, +) }

    public init() {}
}
