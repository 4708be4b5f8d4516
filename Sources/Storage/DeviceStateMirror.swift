import TriggerEngine

/// What the `devices` and `pair_states` rows of each device hold as last committed, so that a batch writes only
/// the rows that differ instead of rewriting every pair of every device it touched.
///
/// Use it in three steps: `change(to:)` (pure) for each snapshot, write the changes in one transaction
/// (`DeviceStateRepository.apply`), and only after that transaction committed, `commit(_:)` them. A device the
/// mirror does not know yet (first write since the process started) is rewritten whole, so the mirror never has
/// to be loaded from the file.
///
/// Rows deleted behind the mirror's back (a removed or replaced request's pairs, by `RequestRepository`) need no
/// notice: their (identifier, revision) never comes back, so the mirror's stale entry can only cause a DELETE of a
/// missing row or an UPSERT keyed on a new revision.
public struct DeviceStateMirror: Sendable {
    /// One pair row as stored.
    struct StoredPair: Sendable, Hashable {
        var revision: UInt64
        var state: String
        /// Restore reads pairs `ORDER BY position`; only the order matters, not the values.
        var position: Int64
    }

    /// One device's rows as stored.
    struct StoredDevice: Sendable, Hashable {
        var lastFix: Timestamp?
        var lastSighting: Timestamp?
        var state: String
        var pairs: [String: StoredPair]
        /// Above every position in use: a new pair appended by the engine goes here.
        var nextPosition: Int64
    }

    private var devices: [String: StoredDevice] = [:]

    public init() {}

    /// Devices whose stored rows the mirror knows.
    public var count: Int { devices.count }

    /// The writes that take `snapshot.device`'s stored rows to `snapshot`.
    public func change(to snapshot: DeviceSnapshot) -> DeviceStateChange {
        guard let stored = devices[snapshot.device] else { return Self.rewrite(snapshot) }
        var result = StoredDevice(lastFix: snapshot.lastFix, lastSighting: snapshot.lastSighting, state: snapshot.state,
                                  pairs: [:], nextPosition: stored.nextPosition)
        result.pairs.reserveCapacity(snapshot.pairs.count)
        let rowChanged = stored.lastFix != snapshot.lastFix || stored.lastSighting != snapshot.lastSighting
            || stored.state != snapshot.state
        var upserts: [DeviceStateChange.PairRow] = []
        // The engine appends new pairs and removes old ones in place, so stored positions normally stay increasing
        // in its order and new pairs go after them; anything else renumbers every pair (still correct, just more
        // writes).
        let renumber = !Self.keepsOrder(snapshot.pairs, stored.pairs)
        for (k, p) in snapshot.pairs.enumerated() {
            let old = stored.pairs[p.identifier]
            let position: Int64
            if renumber {
                position = Int64(k)
            } else if let old {
                position = old.position
            } else {
                position = result.nextPosition
                result.nextPosition += 1
            }
            let row = StoredPair(revision: p.revision, state: p.state, position: position)
            if old != row {
                upserts.append(.init(identifier: p.identifier, revision: p.revision, state: p.state, position: position))
            }
            result.pairs[p.identifier] = row
        }
        if renumber { result.nextPosition = Int64(snapshot.pairs.count) }
        let deletes = stored.pairs.keys.filter { result.pairs[$0] == nil }.sorted()
        return DeviceStateChange(device: snapshot.device, kind: .partial, writesRow: rowChanged, snapshot: snapshot,
                                 pairUpserts: upserts, pairDeletes: deletes, result: result)
    }

    /// The writes that forget a device (the engine no longer has it: expired).
    public func removal(of device: String) -> DeviceStateChange {
        DeviceStateChange(device: device, kind: .delete, writesRow: false, snapshot: nil, pairUpserts: [], pairDeletes: [],
                          result: nil)
    }

    /// Records changes whose transaction has committed.
    public mutating func commit(_ changes: [DeviceStateChange]) {
        for c in changes { devices[c.device] = c.result }
    }

    /// Forgets everything: the next write of each device rewrites it whole (after a failed commit, say).
    public mutating func reset() { devices.removeAll() }

    /// A full rewrite: delete the device's pair rows, write the row and every pair at positions 0, 1, ….
    static func rewrite(_ s: DeviceSnapshot) -> DeviceStateChange {
        var pairs: [String: StoredPair] = [:]
        var upserts: [DeviceStateChange.PairRow] = []
        for (k, p) in s.pairs.enumerated() {
            pairs[p.identifier] = StoredPair(revision: p.revision, state: p.state, position: Int64(k))
            upserts.append(.init(identifier: p.identifier, revision: p.revision, state: p.state, position: Int64(k)))
        }
        let result = StoredDevice(lastFix: s.lastFix, lastSighting: s.lastSighting, state: s.state, pairs: pairs,
                                  nextPosition: Int64(s.pairs.count))
        return DeviceStateChange(device: s.device, kind: .rewrite, writesRow: true, snapshot: s, pairUpserts: upserts,
                                 pairDeletes: [], result: result)
    }

    /// True when the pairs already stored appear in increasing stored position and every new pair comes after them.
    static func keepsOrder(_ pairs: [DeviceSnapshot.Pair], _ stored: [String: StoredPair]) -> Bool {
        var last = Int64.min
        var sawNew = false
        for p in pairs {
            guard let s = stored[p.identifier] else {
                sawNew = true
                continue
            }
            if sawNew || s.position <= last { return false }
            last = s.position
        }
        return true
    }
}
