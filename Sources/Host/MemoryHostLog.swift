import Journal
import Synchronization

/// The host's log in memory, for tests of the host: the same ordering and checkpoint rules as the files, no disk.
/// `crash(keeping:)` simulates a crash: only what was made durable (and optionally less) survives.
public final class MemoryHostLog: HostLog {
    private struct State {
        var first: UInt64 = 0
        var records: [JournalRecord] = []
        var durable: UInt64 = 0
        var checkpoints: [(position: UInt64, body: [UInt8])] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var nextPosition: UInt64 { state.withLock { $0.first + UInt64($0.records.count) } }
    public var durablePosition: UInt64 { state.withLock { $0.durable } }
    public var firstPosition: UInt64 { state.withLock { $0.first } }
    public var failureReason: String? { nil }

    public func write(_ records: [JournalRecord]) throws(JournalError) -> Range<UInt64> {
        state.withLock { s in
            let start = s.first + UInt64(s.records.count)
            s.records += records
            return start..<(start + UInt64(records.count))
        }
    }

    /// Memory is "durable" as soon as asked, at every level: what a crash keeps is what was asked for.
    public func whenDurable(through position: UInt64, _ level: Durability, _ done: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        state.withLock { s in s.durable = max(s.durable, min(position, s.first + UInt64(s.records.count))) }
        done(.success(()))
    }

    public func forEachRecord(from position: UInt64, _ body: (UInt64, JournalRecord) throws -> Void) throws {
        let (first, records, durable) = state.withLock { ($0.first, $0.records, $0.durable) }
        var p = max(position, first)
        while p < durable {
            try body(p, records[Int(p - first)])
            p += 1
        }
    }

    public func saveCheckpoint(_ body: [UInt8], position: UInt64) throws(JournalError) {
        state.withLock { s in
            s.checkpoints.insert((position, body), at: 0)
            if s.checkpoints.count > 2 { s.checkpoints.removeLast() }
        }
    }

    public func checkpoints() throws(JournalError) -> [(position: UInt64, body: Result<[UInt8], JournalError>)] {
        state.withLock { s in s.checkpoints.map { ($0.position, .success($0.body)) } }
    }

    public func dropRecords(before position: UInt64) throws(JournalError) {
        state.withLock { s in
            let n = Int(min(position, s.first + UInt64(s.records.count)) - min(position, s.first))
            guard n > 0 else { return }
            s.records.removeFirst(n)
            s.first += UInt64(n)
        }
    }

    /// A crash: records after `keeping` (default: the durable position) are lost. The log is reusable after it,
    /// as a restarted process would find it.
    public func crash(keeping position: UInt64? = nil) {
        state.withLock { s in
            let keep = min(position ?? s.durable, s.first + UInt64(s.records.count))
            s.records.removeLast(Int(s.first + UInt64(s.records.count) - keep))
            s.durable = keep
        }
    }
}
