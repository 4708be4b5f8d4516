/// A pending deadline: a dwell completing or a beacon exit timeout. Stale entries (the pair moved on) are
/// recognised when they come due and skipped, so nothing has to be removed from the heap early.
///
/// The heap is only the clock's wake-up schedule: a device's own later input settles its deadlines from its pairs
/// (`EngineCore.settle`), and an entry the clock pops settles its whole device, so a device's deadlines always
/// fire in deadline order.
struct TimerEntry: Comparable {
    enum Kind: UInt8 { case dwell, beaconExit }
    var deadline: Timestamp
    var device: Int32
    var slot: Int32
    var slotGeneration: UInt32
    var kind: Kind
    /// When the clock looks at the entry again: the deadline, or later while the device is still sending.
    var wake: Timestamp

    init(deadline: Timestamp, device: Int32, slot: Int32, slotGeneration: UInt32, kind: Kind) {
        self.deadline = deadline
        self.device = device
        self.slot = slot
        self.slotGeneration = slotGeneration
        self.kind = kind
        self.wake = deadline
    }

    static func < (a: TimerEntry, b: TimerEntry) -> Bool {
        // Ties break on deadline, device, slot and kind, so a replay fires simultaneous deadlines in the same order
        // every run.
        if a.wake != b.wake { return a.wake < b.wake }
        if a.deadline != b.deadline { return a.deadline < b.deadline }
        if a.device != b.device { return a.device < b.device }
        if a.slot != b.slot { return a.slot < b.slot }
        return a.kind.rawValue < b.kind.rawValue
    }
}
