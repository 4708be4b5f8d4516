/// Where a device stands with one request (SPEC §3), plus what a dwell or beacon timeout needs to fire later.
/// Only pairs that differ from the implied state are stored (see `TriggerEngine.impliedPhase`).
struct PairState {
    enum Phase: UInt8 {
        case unknown, outside, inside
        /// Inside, waiting for the dwell time before the entry notifies.
        case entering
    }

    var slot: Int32
    var slotGeneration: UInt32
    var phase: Phase
    /// When the current phase began.
    var since: Timestamp
    var lastFired = Timestamp.distantPast
    /// Dwell completion time while `entering`.
    var dwellDeadline = Timestamp.distantFuture
    /// Beacon regions: the last matching sighting.
    var lastMatch = Timestamp.distantPast
    /// The fix or sighting behind a pending dwell or beacon exit, for the notification that fires later.
    var evidence: Evidence?

    init(slot: Int32, slotGeneration: UInt32, phase: Phase, since: Timestamp) {
        self.slot = slot
        self.slotGeneration = slotGeneration
        self.phase = phase
        self.since = since
    }
}

/// What a notification reports as its cause.
enum Evidence: Sendable {
    case fix(FixSnapshot)
    case beacon(BeaconSnapshot)
}
