import Geometry

/// The per-slot numbers the per-fix loop and the state machine read: plain values in one flat array, no
/// reference counting on the hot path.
struct SlotGeometry {
    enum Kind: UInt8 { case empty, circle, polygon, beacon, proximity }
    var kind: Kind = .empty
    /// Circle centre on the ellipsoid (ECEF, metres).
    var center = Geodesy.ECEF(x: 0, y: 0, z: 0)
    var radius = 0.0
    /// Chord length² of the radius: inside (with no uncertainty band) iff chord² ≤ this.
    var radiusChordSquared = 0.0
    var hysteresis = 0.0
    /// Fixes less accurate than this (metres) are ignored; +∞ when unset.
    var maximumAccuracy = Double.infinity
    var scoped = false
    var notifyOnEntry = true
    var notifyOnExit = true
    var initialTrigger = false
    var repeats = false
    var dwell = Timestamp.Duration.zero
    var minimumInterval = Timestamp.Duration.zero
    var exitTimeout = Timestamp.Duration.zero
    /// The request-set generation at add time: a device with a later fix has been evaluated against it.
    var addedGeneration: UInt64 = 0
    /// Clock time at add (beacon regions: observation before it doesn't count as "outside").
    var addedAt = Timestamp.distantPast
}

/// What the engine keeps about one request beyond the hot numbers: read when a notification is rendered.
final class CompiledRequest: Sendable {
    let request: NotificationRequest
    let templates: CompiledTemplates
    /// Global add counter value: part of `deliveryId`, so a replaced request never reuses an old id.
    let revision: UInt64
    /// `request.trigger.region.typeName`, worked out once (the switch over the shape copied its payload per firing).
    let regionTypeName: String

    init(request: NotificationRequest, templates: CompiledTemplates, revision: UInt64) {
        self.request = request
        self.templates = templates
        self.revision = revision
        self.regionTypeName = request.trigger.region.typeName
    }
}
