import Journal

/// Where the host keeps what must survive: the journal of inputs (with the notifications they fired) and the
/// checkpoints of engine state. One small protocol, so the host's tests run on memory (`MemoryHostLog`) and the
/// service on files (`FileHostLog`), and a partitioned log can implement it later. Waiting for what was written
/// to become durable is `DurableWaiting`'s one method.
public protocol HostLog: DurableWaiting {
    /// The position the next record gets.
    var nextPosition: UInt64 { get }
    /// Writes records after everything written before, in call order; not yet durable.
    func write(_ records: [JournalRecord]) throws(JournalError) -> Range<UInt64>
    /// `write`, with the fsync left to `syncWritten()` when `startingSync` is false (a log whose writes start
    /// nothing ignores it).
    func write(_ records: [JournalRecord], startingSync: Bool) throws(JournalError) -> Range<UInt64>
    /// Makes what was written durable on the calling thread (or leaves it to a sync already running, or to a
    /// sync interval's timer).
    func syncWritten()
    /// Calls `body` with each durable record from `position` on, in order; damage throws.
    func forEachRecord(from position: UInt64, _ body: (UInt64, JournalRecord) throws -> Void) throws
    /// Stores a checkpoint of the state after every record before `position`.
    func saveCheckpoint(_ body: [UInt8], position: UInt64) throws(JournalError)
    /// The checkpoints, newest first: (position, body or the damage that makes it unusable).
    func checkpoints() throws(JournalError) -> [(position: UInt64, body: Result<[UInt8], JournalError>)]
    /// Frees the records before `position` (a checkpoint covers them and the outbox holds their notifications).
    func dropRecords(before position: UInt64) throws(JournalError)
    /// The position of the oldest record kept (`dropRecords` frees older ones).
    var firstPosition: UInt64 { get }
    /// Nil while writes are taken; else why not.
    var failureReason: String? { get }
    /// Positions a recovery gave up (none hold a record); a restore reads across them.
    var skippedRanges: [SkippedRange] { get }
    /// What opening the log skipped or moved aside (with `recover`), for the restore report.
    var recovered: [String] { get }
}

extension HostLog {
    public var skippedRanges: [SkippedRange] { [] }
    public var recovered: [String] { [] }
    public var firstPosition: UInt64 { 0 }

    public func write(_ records: [JournalRecord], startingSync: Bool) throws(JournalError) -> Range<UInt64> {
        try write(records)
    }

    public func syncWritten() {}
}
