import SystemErrors
import Dispatch
import Synchronization
import Logging
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// An append-only journal of framed, checksummed records in segment files: the durable order of everything a host
/// accepted.
///
/// Writing and waiting are separate, so a host can keep its order and still share fsyncs: `write` puts records in
/// the file at once, in the order of the calls (the host calls it while it holds its own lock or actor), and
/// `whenDurable(through:_:_:)` answers once an fsync has covered them. One fsync runs at a time, off the caller's
/// thread; every write that lands meanwhile rides on the next one (group commit), so many concurrent requests cost
/// one fsync, not one each. A write starts the fsync itself when none runs, instead of the first waiter: the
/// waiter usually arrives a thread hand-off later (measured on `serve`: 0.72 ms from written to durable per batch
/// for a 0.19 ms fsync).
///
/// Every record has a position (0, 1, 2, …). A checkpoint names the position it covers; `dropSegments(before:)`
/// then frees what no one needs any more.
public final class Journal: Sendable {
    public struct Configuration: Sendable {
        /// A new segment starts once the current one would grow past this (a preallocated one: past its size).
        public var segmentBytes: Int = 64 << 20
        /// The smallest preallocated segment (at most `segmentBytes`). A spare is sized to hold about
        /// `segmentSeconds` of the input rate the current segment saw, between this and `segmentBytes`: a quiet
        /// journal keeps a few MB at rest, a busy one grows to full segments.
        public var minimumSegmentBytes: Int = 1 << 20
        public var segmentSeconds: Double = 600
        /// Damage inside the journal (not a torn tail) refuses to open unless this is set: then the records before
        /// the damage are kept, the rest is moved aside (`*.damaged`), and the report says what was skipped.
        public var recover = false
        /// New segments are preallocated: a spare file of zeros (sized to the input rate, above) is written and
        /// made durable in the background, so records are written over allocated blocks and an fsync carries no
        /// metadata (`JournalSegment`). Skipped while the file system has less than twice the spare's size free;
        /// off, every segment grows as it is appended to.
        public var preallocate = true
        /// The spare is prepared once the current segment holds this many bytes (or a quarter of `segmentBytes`,
        /// if less), so a journal that stays small never writes a segment of zeros: the first CI run with every
        /// journal preallocated at once (64 MB and a 64 MB spare for each of the suite's servers) slowed the
        /// machine enough to fail timing tests. A segment grown by appends moves into the spare as soon as it is
        /// ready. 0: at once, and a new journal's first segment waits for it.
        public var preallocateAfter = 1 << 20
        /// A position the journal must reach, from a durable record kept elsewhere (the sinks' cursors in the
        /// database): opening a journal that ends before it is damage, not a torn tail. `knownEndSource` names it.
        public var knownEnd: UInt64 = 0
        public var knownEndSource = ""
        /// When a written record counts as acknowledged: after its fsync (`always`), or at once, with the fsync at
        /// most an interval later (`JournalSync`).
        public var sync: JournalSync = .always
        public init(segmentBytes: Int = 64 << 20, minimumSegmentBytes: Int = 1 << 20, recover: Bool = false, preallocate: Bool = true,
                    preallocateAfter: Int = 1 << 20, knownEnd: UInt64 = 0, knownEndSource: String = "", sync: JournalSync = .always) {
            self.sync = sync
            self.segmentBytes = segmentBytes
            self.minimumSegmentBytes = minimumSegmentBytes
            self.recover = recover
            self.preallocate = preallocate
            self.preallocateAfter = preallocateAfter
            self.knownEnd = knownEnd
            self.knownEndSource = knownEndSource
        }
    }

    /// What opening found and did, for the start-up log.
    public struct OpenReport: Sendable {
        public var segments = 0
        public var records: UInt64 = 0
        /// A torn tail cut off: file, offset, bytes removed, why.
        public var tornTail: (path: String, offset: Int64, bytes: Int64, reason: String)?
        /// With `recover`: damage skipped (file, offset, why), the files moved aside and the record ranges given up.
        public var skipped: [String] = []
        /// The record ranges this opening gave up (with `recover`).
        public var newlySkipped: [SkippedRange] = []
    }

    /// Counters for metrics and tests.
    public struct Statistics: Sendable {
        public var appends = 0
        public var records: UInt64 = 0
        public var bytes: Int64 = 0
        public var fsyncs = 0
        /// Segments begun in a preallocated spare, and in a file grown as it is appended to.
        public var preallocatedSegments = 0
        public var appendedSegments = 0
        /// Preallocated segments written past the page cache (`DirectTail`).
        public var directSegments = 0
    }

    struct State: ~Copyable {
        var segments: [JournalSegment]
        var fd: FileDescriptor?
        var fileSize: Int64
        /// Where the current segment ends: a preallocated one's size, else `segmentBytes`.
        var limit: Int64
        /// When the current segment began (or was reopened), and its size then: the input rate that sizes the spare.
        var began = ContinuousClock.now
        var sizeAtBegin: Int64 = 0
        /// The position the next record gets, and the first one not yet known durable.
        var nextPosition: UInt64
        var durablePosition: UInt64
        var flushing = false
        var waiters: [(position: UInt64, done: @Sendable (Result<Void, JournalError>) -> Void)] = []
        /// Descriptors of segments rotated away while an fsync may still use them: closed once it is done.
        var retired: [FileDescriptor] = []
        /// Bytes of the current segment already let go of from the page cache (`flushLoop`).
        var released: Int64 = 0
        /// The current segment grows as it is appended to (not preallocated).
        var appended = true
        /// Set while the current segment is written past the page cache: the bytes of its last block.
        var direct: DirectTail?
        /// The next segment's spare was asked for.
        var spareRequested = false
        var poison: String?
        var statistics = Statistics()
    }

    public let directory: String
    public let configuration: Configuration
    public let openReport: OpenReport
    /// Every range a recovery gave up, this one's and earlier ones' (`skipped.ranges`): positions no record holds.
    public let skippedRanges: [SkippedRange]
    let mark: AcknowledgedMark
    let state: Mutex<State>
    /// Set once `State.poison` is: the host asks before every batch, and reading it must not wait for the lock,
    /// which a write holds through its `pwrite` (that wait showed as kernel lock contention on the host's actor).
    let poisoned = Atomic<Bool>(false)
    let logger: Logger
    let syncQueue = DispatchQueue(label: "geotrigger-journal-fsync")
    /// Prepares the next segment's spare; `rotate` waits on it (a `sync` after its `async`) only when the spare is
    /// asked for and not ready yet: a preparation slower than the rest of a segment's writes, or with
    /// `preallocateAfter` 0, a new journal's first segment.
    let spareQueue = DispatchQueue(label: "geotrigger-journal-spare")
    /// The prepared spare, durable and all zeros, and whether it was opened for direct writes. Its own lock: a
    /// preparation never waits for `state`, which a rotation holds while it waits for the preparation.
    let spare = Mutex<(fd: FileDescriptor, direct: Bool, size: Int)?>(nil)
    var sparePath: String { directory + "/" + Self.spareName }
    public static let spareName = "spare-segment.zeros"

    /// Opens (or creates) the journal in `directory`, checking every segment against what durable files say it
    /// must hold (`AcknowledgedMark`, the checkpoints, `configuration.knownEnd`): a torn tail, bytes past all of
    /// that which an interrupted write can leave, is cut off and logged; anything else throws `JournalError.damaged`
    /// with the file and offset, unless `configuration.recover`, which skips exactly what cannot be read, records
    /// the skipped positions (`SkippedRange`) and starts new records after every position anything named.
    public init(directory: String, configuration: Configuration = Configuration(), logger: Logger) throws(JournalError) {
        self.directory = directory
        self.configuration = configuration
        self.logger = logger
        if mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw .io(operation: "mkdir", path: directory, reason: SystemError.text())
        }
        var found = try JournalSystem.segments(in: directory)
        var report = OpenReport()
        let recover = configuration.recover
        var known = try SkippedRangesFile.read(directory: directory)
        var skippedNow: [SkippedRange] = []
        /// Records something durable names: the journal must reach `evidence.position`.
        var evidence = (position: UInt64(0), source: "")
        func raise(_ position: UInt64, _ source: String) {
            if position > evidence.position { evidence = (position, source) }
        }
        var marked: (end: UInt64, first: UInt64)?
        do {
            marked = try AcknowledgedMark.read(directory: directory)
        } catch {
            guard recover else { throw error }
            report.skipped.append("\(error): ignored (--recover); the mark is written again")
            logger.critical("journal: damaged acknowledged mark ignored (--recover)", metadata: ["error": "\(error)"])
            unlink(directory + "/" + AcknowledgedMark.name)
        }
        raise(marked?.end ?? 0, "the acknowledged mark \(directory)/\(AcknowledgedMark.name)")
        if let newest = try CheckpointFiles(directory: directory).list().first {
            raise(newest.position, "the checkpoint \(newest.path)")
        }
        raise(configuration.knownEnd, configuration.knownEndSource)

        var o = Opening(found: found, next: found.first?.firstPosition ?? 0, report: report, skippedNow: skippedNow)
        // Segments before the mark's first position were dropped on purpose; a journal that starts after it lost
        // its oldest records.
        if let marked, marked.first < o.next {
            o.gapReason = "missing: the journal starts at record \(o.next), but \(directory)/\(AcknowledgedMark.name) says it holds records from \(marked.first) on (a segment is missing)"
            o.next = marked.first
        }
        try Self.readSegments(&o, known: known, evidence: evidence, recover: recover, logger: logger)
        found = o.found
        report = o.report
        skippedNow = o.skippedNow
        var next = o.next
        let gapReason = o.gapReason, records = o.records, lastSize = o.lastSize, lastPreallocated = o.lastPreallocated
        let lastBlock = o.lastBlock, lastFileSize = o.lastFileSize
        var startNewSegment = found.isEmpty
        if next < evidence.position {
            let missing = next..<evidence.position
            if !SkippedRange.cover(known + skippedNow, missing) {
                let reason = "the journal ends at record \(next), but \(evidence.source) names record \(evidence.position - 1): records \(next)..<\(evidence.position) are missing"
                guard recover else {
                    throw .damaged(path: found.last?.path ?? directory, offset: found.isEmpty ? 0 : lastSize, reason: reason)
                }
                skippedNow.append(SkippedRange(records: missing, reason: gapReason.map { "\($0); \(reason)" } ?? reason))
            }
            // New records start past every position anything durable named: a cursor or checkpoint never comes to
            // name a different record.
            next = evidence.position
            startNewSegment = true
        }
        if !skippedNow.isEmpty {
            try SkippedRangesFile.append(skippedNow, directory: directory)
            for r in skippedNow {
                report.skipped.append("\(r)")
                logger.critical("journal: records skipped (--recover)", metadata: [
                    "from": "\(r.records.lowerBound)", "until": "\(r.records.upperBound)", "records": "\(r.records.count)",
                    "reason": "\(r.reason)"])
            }
            known += skippedNow
        }
        report.segments = found.count
        report.records = records
        report.newlySkipped = skippedNow
        openReport = report
        skippedRanges = known
        let first = min(marked?.first ?? .max, found.first?.firstPosition ?? next)
        var fd: FileDescriptor?
        var direct: DirectTail?
        if !startNewSegment {
            let path = found[found.count - 1].path
            // A preallocated segment goes on past the page cache, as it was written before the restart. Written
            // through the cache, each small record dirtied the large folio the kernel had read around it (the
            // zeros after the tail), and its fdatasync wrote all of it back: 256 KiB per idle clock tick here.
            if lastPreallocated, configuration.sync.writesDirect, lastBlock.count == Int(lastSize) % DirectTail.alignment {
                do { fd = try DirectTail.openExisting(path) } catch {
                    throw .io(operation: "open", path: path, reason: "\(error)")
                }
                if fd != nil { direct = DirectTail(lastBlock: lastBlock) }
            }
            if fd == nil {
                do { fd = try FileDescriptor.open(FilePath(path), .writeOnly) } catch {
                    throw .io(operation: "open", path: path, reason: "\(error)")
                }
            }
        }
        var initial = State(segments: found, fd: fd, fileSize: startNewSegment ? Int64(JournalSegment.headerSize) : lastSize,
                            limit: Int64(configuration.segmentBytes), nextPosition: next, durablePosition: next)
        initial.appended = startNewSegment || !lastPreallocated
        if !initial.appended { initial.limit = max(lastFileSize, lastSize) }
        initial.sizeAtBegin = initial.fileSize
        initial.direct = direct
        if direct != nil { initial.statistics.directSegments += 1 }
        // What was read is durable (the last segment is synced first: a killed process's writes may be in the page
        // cache only), and the mark says so from now on (a journal from before the mark, or one whose
        // mark a recovery rewrote).
        if let fd { try JournalSystem.fsync(fd, path: found[found.count - 1].path) }
        mark = try AcknowledgedMark(directory: directory, end: next, first: first)
        try mark.rewrite()
        // A spare left by the last run is made again: it may be cut short, and on a disk that filled up since, its
        // space is better left free (`prepareSpare` checks).
        unlink(directory + "/" + Self.spareName)
        if configuration.preallocate, initial.fileSize >= Self.spareThreshold(configuration, limit: initial.limit) {
            initial.spareRequested = true
            let size = Self.spareSize(configuration, initial)
            state = Mutex(initial)
            prepareSpare(size: size)
        } else {
            state = Mutex(initial)
        }
    }

    deinit {
        state.withLock { s in
            try? s.fd?.close()
            for r in s.retired { try? r.close() }
        }
        spare.withLock { try? $0?.fd.close() }
    }

    // MARK: Reading the state

    public var nextPosition: UInt64 { state.withLock { $0.nextPosition } }
    public var durablePosition: UInt64 { state.withLock { $0.durablePosition } }
    public var statistics: Statistics { state.withLock { $0.statistics } }
    /// The first position still on disk.
    public var firstPosition: UInt64 { state.withLock { $0.segments.first?.firstPosition ?? $0.nextPosition } }
    /// Nil while appends are taken; else why not (a failed fsync).
    public var poisonReason: String? {
        poisoned.load(ordering: .acquiring) ? state.withLock { $0.poison } : nil
    }

    /// Deletes the segments whose records all come before `position` (covered by a checkpoint and delivered).
    /// The current segment is kept.
    public func dropSegments(before position: UInt64) throws(JournalError) {
        let (gone, first) = state.withLock { s -> ([JournalSegment], UInt64) in
            var gone: [JournalSegment] = []
            while s.segments.count > 1, s.segments[1].firstPosition <= position { gone.append(s.segments.removeFirst()) }
            return (gone, s.segments.first?.firstPosition ?? s.nextPosition)
        }
        guard !gone.isEmpty else { return }
        // The mark says first that they are gone on purpose; a crash before the unlinks leaves extra old files.
        try mark.drop(before: first)
        for g in gone where unlink(g.path) != 0 {
            throw .io(operation: "unlink", path: g.path, reason: SystemError.text())
        }
        try JournalSystem.fsyncDirectory(directory)
    }

    public func close() {
        // An orderly close leaves nothing to a sync interval: what was acknowledged is durable when it returns.
        syncNow(waitingForInterval: false)
        state.withLock { s in
            if s.flushing, let fd = s.fd { s.retired.append(fd) } else { try? s.fd?.close() }
            s.fd = nil
            s.poison = s.poison ?? "closed"
            poisoned.store(true, ordering: .releasing)
        }
    }

}
