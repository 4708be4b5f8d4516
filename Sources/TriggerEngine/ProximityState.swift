import Geometry
import HeapModule

/// The proximity rules' state (docs/semantics.md "Proximity"): the devices taking part with their newest positions,
/// a moving-point grid per rule and side, the pairs that differ from "outside", and the fixes waiting for the
/// watermark. Pairs are decided in event-time order, never in arrival order, so the notifications do not depend on
/// how inputs were batched or how devices' streams interleaved.
struct ProximityState {
    /// A device that takes part in some rule, with its newest position as a proximity input.
    struct Participant {
        var name: String
        var nameHash: UInt32
        /// The newest position's time; `distantPast` while it has none.
        var time = Timestamp.distantPast
        var latitude = 0.0
        var longitude = 0.0
        var accuracy: Double?
        /// Inputs queued so far: orders one device's inputs of equal time as they arrived.
        var sequence: UInt32 = 0
        /// The rules it takes part in (rebuilt with the rules).
        var roles: [Role] = []
        /// The stored pairs it is part of, on either side, with their phase (kept equal to the stored pair's): a
        /// pair whose phase its new distance confirms needs no look-up in `pairs`.
        var pairs: [ListedPair] = []
        /// The time of its newest proximity notification as a subject, and how many it had at that time: the
        /// deliveryId's ordinal. Its own, not the device's: proximity firings come later than the device's other
        /// firings of the same time (when the watermark passes), and a shared count would depend on when.
        var lastFiring = Timestamp.distantPast
        var firingOrdinal: UInt32 = 0
        var hasPosition: Bool { time > .distantPast }
    }

    /// What a candidate's test reads, one record of 56 bytes per participant: with many devices each candidate is
    /// a cache miss, and the participant record spans several lines.
    struct Hot {
        var ecef = Geodesy.ECEF(x: 0, y: 0, z: 0)
        var time = Timestamp.distantPast
        /// Metres; 0 when the fix gave none.
        var accuracy = 0.0
        /// A per-evaluation visit mark (`ProximityState.visit`), and the same mark when found through a stored pair.
        var visited: UInt32 = 0
        var stored: UInt32 = 0
        /// When `stored` is the current mark: the pair's phase.
        var storedPhase = PairState.Phase.unknown
    }

    struct Role {
        var rule: Int32
        var subject: Bool
        var target: Bool
    }

    /// One proximity request, compiled.
    struct Rule {
        var slot: Int32
        var slotGeneration: UInt32
        var radius: Double
        var maxAge: Timestamp.Duration
        var addedAt: Timestamp
        /// nil: every device is a subject.
        var subjects: Set<String>?
        var targets: Set<String>
        var subjectGrid: MovingPointGrid
        var targetGrid: MovingPointGrid

        func isSubject(_ name: String) -> Bool { subjects.map { $0.contains(name) } ?? true }
    }

    struct ListedPair {
        var key: PairKey
        var phase: PairState.Phase
    }

    struct PairKey: Hashable {
        var slot: Int32
        var subject: Int32
        var target: Int32

        /// One word hashed, not three.
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(UInt32(bitPattern: subject)) << 32 ^ UInt64(UInt32(bitPattern: target)) ^ UInt64(UInt32(bitPattern: slot)) &* 0x9E37_79B9_7F4A_7C15)
        }
    }

    struct Pair {
        var slotGeneration: UInt32
        var phase: PairState.Phase
        var since: Timestamp
        var lastFired = Timestamp.distantPast
        var dwellDeadline = Timestamp.distantFuture
    }

    /// A fix waiting until the watermark has passed it. Ordered for the queue by time, then its name's hash, its
    /// device's record and its sequence; what is taken out is sorted again with names (`precedes`), so the order
    /// of two devices whose hashes tie does not depend on which was seen first.
    struct PendingFix: Comparable {
        var time: Timestamp
        var nameHash: UInt32
        var participant: Int32
        var sequence: UInt32
        var latitude: Double
        var longitude: Double
        var accuracy: Double?

        static func < (a: PendingFix, b: PendingFix) -> Bool {
            if a.time != b.time { return a.time < b.time }
            if a.nameHash != b.nameHash { return a.nameHash < b.nameHash }
            if a.participant != b.participant { return a.participant < b.participant }
            return a.sequence < b.sequence
        }

        static func == (a: PendingFix, b: PendingFix) -> Bool {
            a.time == b.time && a.participant == b.participant && a.sequence == b.sequence
        }
    }

    /// A pair's dwell deadline; stale entries (the pair moved on) are skipped when they come due.
    struct Deadline: Comparable {
        var time: Timestamp
        var key: PairKey
        var subjectHash: UInt32
        var targetHash: UInt32

        static func < (a: Deadline, b: Deadline) -> Bool {
            if a.time != b.time { return a.time < b.time }
            if a.key.slot != b.key.slot { return a.key.slot < b.key.slot }
            if a.subjectHash != b.subjectHash { return a.subjectHash < b.subjectHash }
            if a.targetHash != b.targetHash { return a.targetHash < b.targetHash }
            if a.key.subject != b.key.subject { return a.key.subject < b.key.subject }
            return a.key.target < b.key.target
        }
    }

    var groups: [String: Set<String>] = [:]
    var rules: [Rule] = []
    /// Rules whose subjects are every device: then every device's fixes are proximity inputs.
    var everyoneRules = 0
    /// Every device named as a subject or target of some rule.
    var named: Set<String> = []
    /// Requests were added or removed, or groups changed, since the rules were compiled.
    var needsRebuild = false
    /// Any proximity request is pending (rules compiled or not).
    var requestCount = 0

    var participantIndex: [String: Int32] = [:]
    /// By the engine's device record: the participant it was last (a guess, checked by name: records are reused).
    var participantByDevice: [Int32] = []
    var participants: [Participant] = []
    /// By participant: the hot copy of its position.
    var hot: [Hot] = []
    var pairs: [PairKey: Pair] = [:]
    var pending = Heap<PendingFix>()
    var deadlines = Heap<Deadline>()
    /// Everything up to here has been decided: a later input older than it is too late for proximity.
    var released = Timestamp.distantPast

    // Scratch, reused.
    var ready: [PendingFix] = []
    var candidates: [Int32] = []
    /// The candidates with something to do, and what their distance says.
    var decisions: [Decision] = []

    struct Decision {
        var other: Int32
        var side: EngineCore.Side
    }
    var visit: UInt32 = 0

    var isActive: Bool { requestCount > 0 }

    /// Sets a stored pair's phase in both its devices' lists.
    mutating func setListedPhase(_ key: PairKey, _ phase: PairState.Phase) {
        for side in [key.subject, key.target] {
            if let k = participants[Int(side)].pairs.firstIndex(where: { $0.key == key }) { participants[Int(side)].pairs[k].phase = phase }
        }
    }

    /// Metres between two participants' newest decided positions (their Earth-centred positions are in `hot`).
    func distance(_ a: Int32, _ b: Int32) -> Double {
        Geodesy.arc(chord: hot[Int(a)].ecef.chordSquared(to: hot[Int(b)].ecef).squareRoot())
    }

    /// Whether `name`'s inputs matter to any rule.
    @inline(__always)
    func involves(_ name: String) -> Bool { everyoneRules > 0 || named.contains(name) }

    mutating func participant(_ name: String, hash: UInt32) -> Int32 {
        if let p = participantIndex[name] { return p }
        let p = Int32(participants.count)
        var record = Participant(name: name, nameHash: hash)
        record.roles = roles(of: name)
        participants.append(record)
        hot.append(Hot())
        participantIndex[name] = p
        return p
    }

    func roles(of name: String) -> [Role] {
        var out: [Role] = []
        for (k, r) in rules.enumerated() {
            let s = r.isSubject(name), t = r.targets.contains(name)
            if s || t { out.append(Role(rule: Int32(k), subject: s, target: t)) }
        }
        return out
    }

    /// Fixes in decision order: event time, then a device order that does not depend on arrival (its name's hash,
    /// then its name), then the device's own arrival order.
    static func precedes(_ a: PendingFix, _ b: PendingFix, _ participants: UnsafeBufferPointer<Participant>) -> Bool {
        if a.time != b.time { return a.time < b.time }
        if a.nameHash != b.nameHash { return a.nameHash < b.nameHash }
        if a.participant != b.participant { return participants[Int(a.participant)].name < participants[Int(b.participant)].name }
        return a.sequence < b.sequence
    }

    /// Orders two participants as `precedes` orders devices.
    static func ordered(_ a: Int32, _ b: Int32, _ participants: UnsafeBufferPointer<Participant>) -> Bool {
        if participants[Int(a)].nameHash != participants[Int(b)].nameHash { return participants[Int(a)].nameHash < participants[Int(b)].nameHash }
        return participants[Int(a)].name < participants[Int(b)].name
    }
}
