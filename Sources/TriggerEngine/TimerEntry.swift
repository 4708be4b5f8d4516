/// A pending deadline: a dwell completing or a beacon exit timeout. Stale entries (the pair moved on) are
/// recognised when they come due and skipped, so nothing has to be removed from the heap early.
struct TimerEntry: Comparable {
    enum Kind: UInt8 { case dwell, beaconExit }
    var deadline: Timestamp
    var device: Int32
    var slot: Int32
    var slotGeneration: UInt32
    var kind: Kind

    static func < (a: TimerEntry, b: TimerEntry) -> Bool {
        // Ties break on device, slot and kind, so a replay fires simultaneous deadlines in the same order every run.
        if a.deadline != b.deadline { return a.deadline < b.deadline }
        if a.device != b.device { return a.device < b.device }
        if a.slot != b.slot { return a.slot < b.slot }
        return a.kind.rawValue < b.kind.rawValue
    }
}
