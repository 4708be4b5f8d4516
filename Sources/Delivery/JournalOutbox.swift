import DequeModule
import Sinks
import Synchronization
import TriggerEngine

/// The outbox the sinks deliver from: the notifications of durable journal records, in journal order, held in
/// memory from the oldest one some configured sink has not settled. The journal is the only durable copy: a
/// restart reads them again from the journal, starting at the lowest sink cursor (`refeedPosition`), and the host
/// keeps journal records while this outbox still holds their notifications (`lowestPosition`). What is stored per
/// sink is one cursor row, written with the settlements (`OutboxRepository`).
///
/// Sequences are positions in the journal: `journalBase + (record position << 24) + index in the record`, so they
/// grow with the journal and a cursor names a record. Lower sequences are rows of the outbox table of a version
/// that copied notifications into SQLite (`loadLegacy`), delivered first.
public final class JournalOutbox: Sendable {
    /// The first sequence of a notification read from the journal.
    public static let journalBase: Int64 = 1 << 62
    /// Bits of a sequence for the notification's index within its record: 16M per record, far more than one
    /// record can fire within the outbox's bound.
    static let indexBits: Int64 = 24

    public static func sequence(position: UInt64, index: Int) -> Int64 {
        precondition(index < 1 << indexBits, "a journal record fired more than 16M notifications")
        return journalBase + Int64(position) << indexBits + Int64(index)
    }

    /// The journal record a sequence belongs to; nil for a row of the legacy outbox table.
    public static func position(of sequence: Int64) -> UInt64? {
        sequence >= journalBase ? UInt64((sequence - journalBase) >> indexBits) : nil
    }

    private struct State {
        var entries = Deque<OutboxEntry>()
        var cursors: [String: Int64]
        /// The last sequence of legacy rows still held (their table is emptied once every sink settled them).
        var legacyThrough: Int64?
    }

    /// The configured sinks, in configuration order; with none, nothing is held (nothing would deliver it).
    public let sinks: [String]
    private let state: Mutex<State>

    /// - Parameters:
    ///   - cursors: the cursors stored per sink. A sink without one (added since the last start) starts at the
    ///     oldest notification another configured sink has not settled, i.e. at what the outbox still holds.
    ///   - newSinksStart: where a sink without a cursor starts when no configured sink has one either (the first
    ///     start, or sinks added to a service that had none): the host passes the journal's end, so a new sink
    ///     delivers what fires from now on, not what the journal happens to retain.
    public init(sinks: [String], cursors: [String: Int64], newSinksStart: Int64 = 0) {
        self.sinks = sinks
        let known = sinks.compactMap { cursors[$0] }
        let start = known.min() ?? newSinksStart
        state = Mutex(State(cursors: Dictionary(sinks.map { ($0, cursors[$0] ?? start) }, uniquingKeysWith: { a, _ in a })))
    }

    /// The sequence before the first notification of the record at `position`: a cursor there has settled
    /// everything journaled before it.
    public static func cursor(before position: UInt64) -> Int64 { sequence(position: position, index: 0) - 1 }

    /// Every configured sink's cursor, stored or not yet.
    public var cursors: [String: Int64] { state.withLock { $0.cursors } }

    /// The journal position from which a restart must read notifications again: the record of the lowest cursor,
    /// or `legacyFed` (the position up to which a legacy outbox table holds them) while some cursor is still in
    /// that table. Nil without sinks.
    public func refeedPosition(legacyFed: UInt64) -> UInt64? {
        state.withLock { s in
            guard let low = s.cursors.values.min() else { return nil }
            return Self.position(of: low) ?? legacyFed
        }
    }

    /// Holds the unsettled rows of a legacy outbox table (sequences below `journalBase`), before anything else.
    public func loadLegacy(_ rows: [OutboxEntry]) {
        state.withLock { s in
            guard let low = s.cursors.values.min() else { return }
            let open = rows.filter { $0.sequence > low }
            guard let last = open.last else { return }
            s.entries.insert(contentsOf: open, at: 0)
            s.legacyThrough = last.sequence
        }
    }

    /// Appends notifications of durable records, in sequence order. Those every sink settled already (a restart
    /// reads whole records again) are skipped.
    public func append(_ entries: [OutboxEntry]) {
        guard !sinks.isEmpty, !entries.isEmpty else { return }
        state.withLock { s in
            let low = s.cursors.values.min() ?? .max
            for e in entries where e.sequence > low && e.sequence > (s.entries.last?.sequence ?? .min) {
                s.entries.append(e)
            }
        }
    }

    /// Up to `limit` entries after `sequence`, oldest first.
    public func entries(after sequence: Int64, limit: Int) -> [OutboxEntry] {
        state.withLock { s in
            let from = Self.firstIndex(after: sequence, in: s.entries)
            return Array(s.entries[from..<min(s.entries.endIndex, from + limit)])
        }
    }

    /// Every entry held, oldest first.
    public var all: [OutboxEntry] { state.withLock { Array($0.entries) } }

    public func cursor(of sink: String) -> Int64 { state.withLock { $0.cursors[sink] ?? 0 } }

    /// Entries after the sink's cursor: not settled, or settled out of order (a later device's) and not yet
    /// passed by the cursor.
    public func depth(of sink: String) -> Int {
        state.withLock { s in s.entries.count - Self.firstIndex(after: s.cursors[sink] ?? 0, in: s.entries) }
    }

    /// The oldest entry after the sink's cursor.
    public func oldestUnsettled(of sink: String) -> OutboxEntry? {
        state.withLock { s in
            let i = Self.firstIndex(after: s.cursors[sink] ?? 0, in: s.entries)
            return i < s.entries.endIndex ? s.entries[i] : nil
        }
    }

    /// How many entries are held and when the oldest entered the outbox.
    public var extent: (entries: Int, oldest: Timestamp?) {
        state.withLock { s in (s.entries.count, s.entries.first.map { $0.enqueuedAt ?? $0.createdAt }) }
    }

    /// The journal position of the oldest notification held: records from there on must stay.
    public var lowestPosition: UInt64? {
        state.withLock { s in s.entries.first(where: { $0.sequence >= Self.journalBase }).flatMap { Self.position(of: $0.sequence) } }
    }

    /// Moves the sink's cursor (never back) once its settlement is stored, and lets go of what every sink has
    /// settled. Returns how many entries left, and whether the last legacy row just did (its table can go).
    @discardableResult
    public func settle(sink: String, through cursor: Int64) -> (released: Int, legacyDrained: Bool) {
        state.withLock { s in
            guard let old = s.cursors[sink], cursor > old else { return (0, false) }
            s.cursors[sink] = cursor
            let low = s.cursors.values.min() ?? cursor
            let cut = Self.firstIndex(after: low, in: s.entries)
            s.entries.removeFirst(cut)
            var drained = false
            if let legacy = s.legacyThrough, low >= legacy {
                s.legacyThrough = nil
                drained = true
            }
            return (cut, drained)
        }
    }

    /// Index of the first entry with a sequence above `sequence` (entries are in sequence order).
    private static func firstIndex(after sequence: Int64, in entries: Deque<OutboxEntry>) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].sequence <= sequence { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
