import CPrefetch

/// The recent inputs of devices and what the engine did with them, kept so a decision can be explained afterwards
/// (`TriggerEngine.explain`). Each explained device owns one ring of `depth` entries, allocated when the device is
/// first seen and handed back when it is forgotten; the ring's number and the count of entries written to it sit in
/// the device's observer record, so a compaction or reuse of device records moves them with the device, and the
/// per-fix path, which has that record in cache already, finds where to write without another load. An input is one entry; what it did to a request
/// (entered, exited, dwell started, fired, held back by `minimumInterval`, delivered) is one more entry after it.
/// Writing an entry is a store into memory allocated up front: the per-fix path allocates nothing.
struct ExplainHistory {
    enum Mode: Equatable {
        case off
        /// Every device keeps its last `depth` entries (serve).
        case every(depth: Int)
        /// Only this device, everything until drained (replay's `--explain`).
        case device(String)
    }

    let mode: Mode
    let depth: Int
    var entries: [ExplainEntry] = []
    var ringCount = 0
    var freeRings: [Int32] = []
    /// The device whose input is being evaluated (its events belong to that input), or -1 while the clock acts.
    var currentDevice: Int32 = -1

    /// Entries kept for the one device of `.device` mode before the oldest are overwritten: the caller drains
    /// after every batch, so this bounds only a batch's worth of one device.
    static let drainedDepth = 1 << 16

    init(mode: Mode) {
        self.mode = mode
        switch mode {
        case .off: depth = 0
        case let .every(depth): self.depth = max(0, depth)
        case .device: depth = Self.drainedDepth
        }
    }

    var isOn: Bool { depth > 0 }

    /// Whether a device of this name gets a ring.
    func wants(_ name: String) -> Bool {
        switch mode {
        case .off: false
        case .every: depth > 0
        case let .device(target): name == target
        }
    }

    /// A ring for a new device (whose observer record counts 0 entries written).
    mutating func allocateRing() -> Int32 {
        if let r = freeRings.popLast() { return r }
        let r = Int32(ringCount)
        ringCount += 1
        entries.append(contentsOf: repeatElement(ExplainEntry(), count: depth))
        return r
    }

    mutating func release(_ r: Int32) {
        guard r >= 0 else { return }
        freeRings.append(r)
    }

    /// Starts loading the entry the ring's next write goes to: with many devices it is a cache miss per input, and
    /// the batch path asks for it a few inputs ahead, as it does for the device records.
    @inline(__always)
    func prefetchNext(ring r: Int32, written n: UInt64) {
        guard r >= 0, Int(r) < ringCount else { return }
        let k = Int(r) * depth + Int(n % UInt64(depth))
        entries.withUnsafeBufferPointer { geotrigger_prefetch($0.baseAddress! + k) }
    }

    /// Writes the ring's entry number `n` (its observer record's count, which the caller then increments).
    @inline(__always)
    mutating func write(_ entry: ExplainEntry, ring r: Int32, number n: UInt64) {
        entries[Int(r) * depth + Int(n % UInt64(depth))] = entry
    }

    /// The ring's kept entries, oldest first, and how many older ones it no longer holds, of the `n` written.
    func kept(ring r: Int32, written n: UInt64, since start: UInt64 = 0) -> (entries: [ExplainEntry], dropped: UInt64) {
        // A ring handed out again (its device forgotten and seen anew) starts over.
        let start = start > n ? 0 : start
        let first = max(start, n > UInt64(depth) ? n - UInt64(depth) : 0)
        var out: [ExplainEntry] = []
        out.reserveCapacity(Int(n - first))
        var k = first
        while k < n {
            out.append(entries[Int(r) * depth + Int(k % UInt64(depth))])
            k += 1
        }
        return (out, first - start)
    }
}

/// One input or event in a device's explain history: 32 bytes of plain values.
struct ExplainEntry {
    enum Kind: UInt8 {
        case empty
        /// A fix: `a`, `b` its latitude and longitude, `accuracy` its horizontal accuracy (NaN: none given);
        /// `code` 0 when evaluated, else its `FixRejection` (index in `allCases`) plus 1.
        case fix
        /// A beacon sighting: `a` its RSSI, `b` its estimated distance (NaN: none); `code` as for a fix.
        case sighting
        /// The clock acted on the device without an input of its own (a dwell or beacon exit deadline, an expiry).
        case clock
        /// What the preceding input (or clock marker) did to one request: `code` an `ExplainEvent`, `a` the slot and
        /// generation (bit pattern `slot << 32 | generation`), `b` a time the event waits for (microseconds), if any.
        case event
    }

    var time: Timestamp = .distantPast
    var a: Double = 0
    var b: Double = 0
    var accuracy: Float32 = .nan
    var kind: Kind = .empty
    var code: UInt8 = 0

    static func event(_ e: ExplainEvent, slot: Int32, generation: UInt32, at time: Timestamp, until: Timestamp?) -> ExplainEntry {
        var x = ExplainEntry()
        x.kind = .event
        x.code = e.rawValue
        x.time = time
        x.a = Double(bitPattern: UInt64(UInt32(bitPattern: slot)) << 32 | UInt64(generation))
        x.b = until.map { Double(bitPattern: UInt64(bitPattern: $0.microseconds)) } ?? .nan
        return x
    }

    var slot: Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: a.bitPattern >> 32)) }
    var generation: UInt32 { UInt32(truncatingIfNeeded: a.bitPattern) }
    var until: Timestamp? { b.isNaN ? nil : Timestamp(microseconds: Int64(bitPattern: b.bitPattern)) }
    var rejection: FixRejection? { code == 0 ? nil : FixRejection.allCases[Int(code) - 1] }

    static func code(of rejection: FixRejection?) -> UInt8 {
        guard let rejection else { return 0 }
        return UInt8(FixRejection.allCases.firstIndex(of: rejection)! + 1)
    }
}

/// What an input did to one request, as recorded for explanations.
enum ExplainEvent: UInt8 {
    /// Became inside and notified (or was suppressed, see `fired`/`suppressed` after it).
    case entered
    /// Became inside without notifying: the first fix of a device already inside (no `initialTrigger`).
    case initiallyInside
    /// Inside; the entry notifies once the dwell time has passed (`b`: when).
    case dwellStarted
    /// Left before the dwell time: the entry is cancelled silently.
    case dwellCancelled
    /// The dwell time passed: the entry notifies now.
    case dwellCompleted
    case exited
    /// A notification was emitted (the entry or exit just recorded).
    case fired
    /// A notification was held back by `minimumInterval` (`b`: until when).
    case suppressed
    /// A `repeats: false` request fired and left the pending set.
    case delivered
}
