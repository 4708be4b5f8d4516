import Geometry

/// The per-slot numbers the per-fix loop reads: plain values in one flat array, no reference counting.
struct SlotGeometry {
    enum Kind: UInt8 { case empty, circle, polygon, beacon }
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
}

/// Everything the engine keeps about one registered request.
struct CompiledRequest {
    let request: NotificationRequest
    let templates: CompiledTemplates
    /// Global add counter value: part of `deliveryId`, so a replaced request never reuses an old id.
    let revision: UInt64
    /// The request-set generation at add time: a device with a later fix has been evaluated against it.
    let addedGeneration: UInt64
    /// Clock time at add (beacon regions: observation before it doesn't count as "outside").
    let addedAt: Timestamp
    let dwell: Timestamp.Duration
    let minimumInterval: Timestamp.Duration
    let exitTimeout: Timestamp.Duration
    var firings: UInt64 = 0
}
