import Journal
import Logging

/// The host's log on local files: journal segments and checkpoint files in one directory.
public final class FileHostLog: HostLog {
    public let journal: Journal
    let checkpointFiles: CheckpointFiles

    /// Opens (or creates) the directory. A torn journal tail is cut off and logged; other damage throws unless
    /// `recover`. `knownEnd`: a position the journal must reach by a record kept elsewhere (the sinks' cursors),
    /// with what names it.
    public init(directory: String, segmentBytes: Int = 64 << 20, recover: Bool = false, preallocate: Bool = true,
                knownEnd: (position: UInt64, source: String)? = nil, sync: JournalSync = .always, logger: Logger) throws(JournalError) {
        journal = try Journal(directory: directory, configuration: .init(segmentBytes: segmentBytes, recover: recover, preallocate: preallocate,
                                                                         knownEnd: knownEnd?.position ?? 0, knownEndSource: knownEnd?.source ?? "",
                                                                         sync: sync),
                              logger: logger)
        checkpointFiles = CheckpointFiles(directory: directory)
    }

    public var directory: String { journal.directory }
    public var nextPosition: UInt64 { journal.nextPosition }
    public var firstPosition: UInt64 { journal.firstPosition }
    public var failureReason: String? { journal.poisonReason }
    public var skippedRanges: [SkippedRange] { journal.skippedRanges }
    public var recovered: [String] { journal.openReport.skipped }

    public func write(_ records: [JournalRecord]) throws(JournalError) -> Range<UInt64> { try journal.write(records) }

    public func write(_ records: [JournalRecord], startingSync: Bool) throws(JournalError) -> Range<UInt64> {
        try journal.write(records, startingSync: startingSync)
    }

    public func syncWritten() { journal.syncNow() }

    public func whenDurable(through position: UInt64, _ level: Durability, _ done: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        journal.whenDurable(through: position, level, done)
    }

    public func forEachRecord(from position: UInt64, _ body: (UInt64, JournalRecord) throws -> Void) throws {
        var reader = try JournalReader(directory: journal.directory, from: position)
        let end = journal.durablePosition
        while let (p, r) = try reader.next(), p < end { try body(p, r) }
    }

    public func saveCheckpoint(_ body: [UInt8], position: UInt64) throws(JournalError) {
        try checkpointFiles.write(body, position: position)
    }

    public func checkpoints() throws(JournalError) -> [(position: UInt64, body: Result<[UInt8], JournalError>)] {
        try checkpointFiles.list().map { e in
            (e.position, Result { () throws(JournalError) -> [UInt8] in try checkpointFiles.read(e) })
        }
    }

    public func dropRecords(before position: UInt64) throws(JournalError) { try journal.dropSegments(before: position) }

    public func close() { journal.close() }
}
