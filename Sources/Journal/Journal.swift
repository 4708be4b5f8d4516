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
/// `waitDurable(through:)` returns once an fsync has covered them. One fsync runs at a time, off the caller's
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
        public init(segmentBytes: Int = 64 << 20, minimumSegmentBytes: Int = 1 << 20, recover: Bool = false, preallocate: Bool = true,
                    preallocateAfter: Int = 1 << 20, knownEnd: UInt64 = 0, knownEndSource: String = "") {
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

    private struct State: ~Copyable {
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
    private let mark: AcknowledgedMark
    private let state: Mutex<State>
    /// Set once `State.poison` is: the host asks before every batch, and reading it must not wait for the lock,
    /// which a write holds through its `pwrite` (that wait showed as kernel lock contention on the host's actor).
    private let poisoned = Atomic<Bool>(false)
    private let logger: Logger
    private let syncQueue = DispatchQueue(label: "geotrigger-journal-fsync")
    /// Prepares the next segment's spare; `rotate` waits on it (a `sync` after its `async`) only when the spare is
    /// asked for and not ready yet: a preparation slower than the rest of a segment's writes, or with
    /// `preallocateAfter` 0, a new journal's first segment.
    private let spareQueue = DispatchQueue(label: "geotrigger-journal-spare")
    /// The prepared spare, durable and all zeros, and whether it was opened for direct writes. Its own lock: a
    /// preparation never waits for `state`, which a rotation holds while it waits for the preparation.
    private let spare = Mutex<(fd: FileDescriptor, direct: Bool, size: Int)?>(nil)
    private var sparePath: String { directory + "/" + Self.spareName }
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
            throw .io(operation: "mkdir", path: directory, reason: String(cString: strerror(errno)))
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

        var records: UInt64 = 0
        /// Why the next segment may start after `next` (damage cut the one before short).
        var gapReason: String?
        var next: UInt64 = found.first?.firstPosition ?? 0
        // Segments before the mark's first position were dropped on purpose; a journal that starts after it lost
        // its oldest records.
        if let marked, marked.first < next {
            next = marked.first
            gapReason = "missing: the journal starts at record \(found.first?.firstPosition ?? 0), but \(directory)/\(AcknowledgedMark.name) says it holds records from \(marked.first) on (a segment is missing)"
        }
        var lastSize = Int64(JournalSegment.headerSize)
        var lastPreallocated = false
        /// The bytes of the last segment's last, partly written block (a reopened preallocated segment's direct tail).
        var lastBlock: ArraySlice<UInt8> = []
        var lastFileSize = Int64(0)
        var k = 0
        while k < found.count {
            let segment = found[k]
            let isLast = k == found.count - 1
            if segment.firstPosition < next {
                let reason = "starts at record \(segment.firstPosition), inside the segment before it (which ends at record \(next))"
                guard recover else { throw .damaged(path: segment.path, offset: 0, reason: reason) }
                report.skipped += try Self.moveAside([segment.path], because: reason, logger: logger)
                found.remove(at: k)
                continue
            }
            if segment.firstPosition > next {
                let gap = next..<segment.firstPosition
                if !SkippedRange.cover(known + skippedNow, gap) {
                    let reason = gapReason ?? "missing: \(segment.path) starts at record \(segment.firstPosition), expected \(next) (a segment is missing)"
                    guard recover else { throw .damaged(path: segment.path, offset: 0, reason: reason) }
                    skippedNow.append(SkippedRange(records: gap, reason: reason))
                }
                next = segment.firstPosition
            }
            gapReason = nil
            let bytes = try JournalSystem.readAll(segment.path)
            let scan = JournalSegment.scan(bytes, firstPosition: segment.firstPosition)
            next = segment.firstPosition + UInt64(scan.records.count)
            records += UInt64(scan.records.count)
            lastSize = Int64(scan.validEnd)
            lastPreallocated = scan.preallocated
            if isLast {
                let end = min(scan.validEnd, bytes.count)  // a file shorter than a header has no valid bytes
                lastBlock = bytes[(end / DirectTail.alignment * DirectTail.alignment)..<end]
                lastFileSize = Int64(bytes.count)
            }
            if let problem = scan.problem {
                if isLast, problem.offset == 0, next >= evidence.position, Self.isCutShortHeader(bytes, first: segment.firstPosition) {
                    // A rotation cut short by the crash: the new file exists, its header was not (wholly) written,
                    // and it cannot hold a record. Its header is written again; nothing is lost.
                    try Self.writeFile(segment.path, JournalSegment.header(segment.firstPosition))
                    lastSize = Int64(JournalSegment.headerSize)
                    report.tornTail = (segment.path, 0, Int64(bytes.count), "a new segment's header cut short (\(bytes.count) bytes)")
                    logger.warning("journal: a segment created just before the crash had no header; written again", metadata: [
                        "file": "\(segment.path)", "bytes": "\(bytes.count)"])
                } else if problem.tornTail && isLast && problem.offset >= JournalSegment.headerSize && next >= evidence.position {
                    // Past everything durable names, and what a write cut short leaves: never acknowledged. In a
                    // preallocated segment the torn bytes are zeroed where they are, so the blocks after them stay
                    // allocated; elsewhere the file is cut.
                    let torn = Int64((scan.preallocated ? scan.dataEnd : bytes.count) - problem.offset)
                    if scan.preallocated {
                        try Self.zero(segment.path, from: Int64(problem.offset), count: Int(torn))
                    } else {
                        try Self.truncate(segment.path, to: Int64(problem.offset))
                    }
                    report.tornTail = (segment.path, Int64(problem.offset), torn, problem.reason)
                    logger.warning("journal: torn tail cut off", metadata: [
                        "file": "\(segment.path)", "offset": "\(problem.offset)", "bytes": "\(torn)",
                        "reason": "\(problem.reason)"])
                } else {
                    var reason = "record \(next): \(problem.reason)"
                    if isLast, problem.tornTail, next < evidence.position {
                        reason += " (not a torn tail: \(evidence.source) names record \(evidence.position - 1))"
                    }
                    guard recover else { throw .damaged(path: segment.path, offset: Int64(problem.offset), reason: reason) }
                    // Keep what comes before the damage; the rest of this file goes aside, the later files stay.
                    let aside = segment.path + ".damaged-\(problem.offset)"
                    try Self.writeFile(aside, Array(bytes[min(problem.offset, bytes.count)...]))
                    try Self.truncate(segment.path, to: Int64(max(problem.offset, JournalSegment.headerSize)))
                    if problem.offset < JournalSegment.headerSize { try Self.writeFile(segment.path, JournalSegment.header(segment.firstPosition)) }
                    lastSize = Int64(max(problem.offset, JournalSegment.headerSize))
                    lastPreallocated = false
                    let what = "\(segment.path) from byte \(problem.offset) (\(reason)) moved to \(aside)"
                    report.skipped.append(what)
                    gapReason = "unreadable: \(what)"
                    logger.critical("journal: damage skipped (--recover)", metadata: [
                        "file": "\(segment.path)", "offset": "\(problem.offset)", "reason": "\(reason)", "moved": "\(aside)"])
                }
            }
            k += 1
        }
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
            if lastPreallocated, lastBlock.count == Int(lastSize) % DirectTail.alignment {
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

    /// Bytes in the current segment (which ends at `limit`) from which the next one's spare is prepared.
    private static func spareThreshold(_ c: Configuration, limit: Int64) -> Int64 {
        min(Int64(c.preallocateAfter), limit / 4)
    }

    /// The next spare's size: about `segmentSeconds` of what the current segment received since it began, in whole
    /// MiB (whole blocks below one), between `minimumSegmentBytes` and `segmentBytes`, and at most twice the
    /// current segment (or what an appended one received): a burst, such as a large regions file loaded at start,
    /// does not size a gateway's segments for a rate it never sees again; sustained load doubles them segment by
    /// segment. Nothing received yet (a restart, or a new journal's first segment): the minimum.
    private static func spareSize(_ c: Configuration, _ s: borrowing State) -> Int {
        let low = min(c.minimumSegmentBytes, c.segmentBytes)
        let received = Double(s.fileSize - s.sizeAtBegin)
        let seconds = max((ContinuousClock.now - s.began) / .seconds(1), 0.001)
        let wanted = min(received / seconds * c.segmentSeconds, 2 * (s.appended ? received : Double(s.limit)))
        guard wanted.isFinite, wanted > Double(low) else { return low }
        let unit = wanted >= Double(1 << 20) ? 1 << 20 : DirectTail.alignment
        let rounded = (min(wanted, Double(c.segmentBytes)) / Double(unit)).rounded(.up) * Double(unit)
        return max(low, min(c.segmentBytes, Int(rounded)))
    }

    deinit {
        state.withLock { s in
            try? s.fd?.close()
            for r in s.retired { try? r.close() }
        }
        spare.withLock { try? $0?.fd.close() }
    }

    // MARK: Writing

    /// Writes `records` after everything written before, and returns their positions. They are in the file (the
    /// page cache) but not yet durable: acknowledge nothing before `waitDurable(through: range.upperBound)`.
    /// A failed write is cut back (nothing half-written stays) and throws.
    ///
    /// With `startingSync` false the write leaves its fsync to the caller's `syncNow()` (or to a waiter): a single
    /// writer that writes everything queued and then syncs once, on its own thread, saves a wake of the fsync
    /// thread per group commit.
    @discardableResult
    public func write(_ records: [JournalRecord], startingSync: Bool = true) throws(JournalError) -> Range<UInt64> {
        // One record (the host's case) goes to the file as its header and its payload side by side (pwritev): the
        // payload is not copied into a frame buffer first, a memmove of the whole batch that was ~1 % of `serve`'s
        // CPU under load. Several records are framed into one buffer.
        var bytes: [UInt8] = []
        let single = records.count == 1
        if single {
            JournalFrame.appendHeader(records[0], to: &bytes)
        } else {
            bytes.reserveCapacity(records.reduce(0) { $0 + $1.payload.count + JournalFrame.headerSize + 1 })
            for r in records { JournalFrame.append(r, to: &bytes) }
        }
        let frameBytes = single ? bytes.count + records[0].payload.count : bytes.count
        let (range, flush) = try state.withLock { s throws(JournalError) -> (Range<UInt64>, Bool) in
            if let poison = s.poison { throw .poisoned(reason: poison) }
            guard !records.isEmpty else { return (s.nextPosition..<s.nextPosition, false) }
            if s.fd == nil || (s.fileSize > Int64(JournalSegment.headerSize)
                && s.fileSize + Int64(frameBytes) > s.limit) {
                try rotate(&s)
            } else if s.appended, s.fileSize > Int64(JournalSegment.headerSize), spare.withLock({ $0 != nil }) {
                // A busy journal in a segment that grows: on into the preallocated spare now, not in 64 MB.
                try rotate(&s)
            }
            guard let fd = s.fd, let path = s.segments.last?.path else { throw .closed }
            let at = s.fileSize
            do {
                var done = 0
                if let direct = s.direct {
                    let failure = bytes.withUnsafeBytes { head in
                        records[0].payload.withUnsafeBytes { payload in
                            direct.write(fd, at: at, head, single ? payload : UnsafeRawBufferPointer(start: nil, count: 0))
                        }
                    }
                    switch failure {
                    case nil:
                        done = frameBytes
                    case .invalidArgument?:
                        // The file system wants other alignment: this segment goes on through the page cache.
                        DirectTail.stopDirect(fd)
                        s.direct = nil
                        logger.notice("journal: direct writes refused (EINVAL); this segment is written through the page cache",
                                      metadata: ["file": "\(path)"])
                    case let error?:
                        throw error
                    }
                }
                if single, done == 0 {
                    done = try Self.writeHeaderAndPayload(fd, header: bytes, payload: records[0].payload, at: at)
                    // A short write (a disk filling up) continues from the framed bytes, as several records do.
                    if done < frameBytes { bytes.append(contentsOf: records[0].payload) }
                }
                while done < bytes.count {
                    done += try bytes.withUnsafeBytes {
                        try fd.write(toAbsoluteOffset: at + Int64(done), UnsafeRawBufferPointer(rebasing: $0[done...]),
                                     retryOnInterrupt: true)
                    }
                }
            } catch {
                // ENOSPC part-way: cut back to the last whole frame, so a retry appends after good data.
                do { try fd.resize(to: at, retryOnInterrupt: true) } catch {
                    s.poison = "a failed write could not be cut back: \(error)"
                    poisoned.store(true, ordering: .releasing)
                }
                throw .io(operation: "write", path: path, reason: "\(error)")
            }
            let first = s.nextPosition
            s.fileSize += Int64(frameBytes)
            s.nextPosition += UInt64(records.count)
            s.statistics.appends += 1
            s.statistics.records += UInt64(records.count)
            s.statistics.bytes += Int64(frameBytes)
            if !s.spareRequested, configuration.preallocate, s.fileSize >= Self.spareThreshold(configuration, limit: s.limit) {
                s.spareRequested = true
                prepareSpare(size: Self.spareSize(configuration, s))
            }
            let flush = startingSync && !s.flushing
            if flush { s.flushing = true }
            return (first..<s.nextPosition, flush)
        }
        if flush { syncQueue.async { self.flushLoop() } }
        return range
    }

    /// Makes everything written durable on the calling thread, and answers the waiters it covers there; returns
    /// at once when an fsync already running will cover it (that one loops while anything is unsynced).
    public func syncNow() {
        let run = state.withLock { s -> Bool in
            guard !s.flushing, s.nextPosition > s.durablePosition else { return false }
            s.flushing = true
            return true
        }
        if run { flushLoop() }
    }

    /// One `pwritev` of a frame's header and payload; returns the bytes written (fewer than both only when the
    /// disk is filling up).
    private static func writeHeaderAndPayload(_ fd: FileDescriptor, header: [UInt8], payload: [UInt8], at offset: Int64) throws(Errno) -> Int {
        let written = header.withUnsafeBytes { h in
            payload.withUnsafeBytes { p in
                var vectors = [iovec(iov_base: UnsafeMutableRawPointer(mutating: h.baseAddress), iov_len: h.count),
                               iovec(iov_base: UnsafeMutableRawPointer(mutating: p.baseAddress), iov_len: p.count)]
                var n: Int
                repeat { n = pwritev(fd.rawValue, &vectors, 2, off_t(offset)) } while n < 0 && errno == EINTR
                return n
            }
        }
        guard written >= 0 else { throw Errno(rawValue: errno) }
        return written
    }

    /// Returns once every record before `position` is durable (fsync'd). Waiters that arrive while an fsync runs
    /// share the next one. A failed fsync poisons the journal: this and every later call throws.
    public func waitDurable(through position: UInt64) async throws(JournalError) {
        let result: Result<Void, JournalError> = await withCheckedContinuation { c in
            whenDurable(through: position) { c.resume(returning: $0) }
        }
        try result.get()
    }

    /// Calls `done` once every record before `position` is durable, or with why not: on the fsync's thread, or at
    /// once on the caller's. A position not yet written waits for the write that reaches it (which starts its
    /// fsync). For a caller that hands the result on without a task of its own (one thread hand-off fewer).
    public func whenDurable(through position: UInt64, _ done: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        enum Next { case now(Result<Void, JournalError>), flush, wait }
        let next = state.withLock { s -> Next in
            if let poison = s.poison { return .now(.failure(.poisoned(reason: poison))) }
            if s.durablePosition >= position { return .now(.success(())) }
            s.waiters.append((position, done))
            if s.flushing || position > s.nextPosition { return .wait }
            s.flushing = true
            return .flush
        }
        switch next {
        case .now(let r): done(r)
        case .flush: syncQueue.async { self.flushLoop() }
        case .wait: break
        }
    }

    /// Appends `records` in order and returns their positions once they are durable: `write` then `waitDurable`.
    @discardableResult
    public func append(_ records: [JournalRecord]) async throws(JournalError) -> Range<UInt64> {
        let range = try write(records)
        try await waitDurable(through: range.upperBound)
        return range
    }

    /// Runs on `syncQueue` (or on `syncNow`'s caller) while something written is not yet durable: fsync it, wake the
    /// waiters it covers, repeat.
    private func flushLoop() {
        while true {
            let (fd, path, upTo, synced, released) = state.withLock { s in
                // A segment written past the page cache has nothing in it to give back.
                (s.fd, s.segments.last?.path ?? directory, s.nextPosition, s.fileSize, s.direct == nil ? s.released : Int64.max)
            }
            var failure: JournalError?
            if let fd {
                do throws(JournalError) {
                    try JournalSystem.fdatasync(fd, path: path)
                    // Before anyone is told: the mark then covers every acknowledged record (`AcknowledgedMark`).
                    try mark.advance(to: upTo)
                    // The synced pages are read again only by a restart: give them back now. Left in the page
                    // cache, they grow it by the journal's full rate, and every write lands on a page the kernel
                    // must first find; measured on `http_ingest.py`, copying records into new page-cache pages
                    // was 9 % of serve's CPU. Whole pages only: the last one is written on by the next record.
                    // The range starts at the 2 MiB boundary before what was released last: the kernel caches a
                    // preallocated segment's zeros in folios of up to 2 MiB, and drops a folio only when the range
                    // covers all of it (measured on 6.18: from the last release on, nothing was ever dropped).
                    let end = synced & ~Int64(4095)
                    if end > released {
                        JournalSystem.releaseCache(fd, from: released & ~Int64((2 << 20) - 1), to: end)
                        state.withLock { s in if s.fd == fd { s.released = max(s.released, end) } }
                    }
                } catch { failure = error }
            } else {
                // Closed (or a rotation failed) before this fsync: what was written is not known durable.
                failure = .closed
            }
            let (ready, more) = state.withLock { s -> ([(@Sendable (Result<Void, JournalError>) -> Void, Result<Void, JournalError>)], Bool) in
                s.statistics.fsyncs += 1
                for r in s.retired { try? r.close() }
                s.retired.removeAll()
                if let failure {
                    s.poison = s.poison ?? "\(failure)"
                    poisoned.store(true, ordering: .releasing)
                    let all = s.waiters.map { ($0.done, Result<Void, JournalError>.failure(failure)) }
                    s.waiters.removeAll()
                    s.flushing = false
                    return (all, false)
                }
                s.durablePosition = max(s.durablePosition, upTo)
                let durable = s.durablePosition
                let covered = s.waiters.filter { $0.position <= durable }.map { ($0.done, Result<Void, JournalError>.success(())) }
                s.waiters.removeAll { $0.position <= durable }
                // Written during the fsync: the next one covers it. Waiters for records not yet written wait for
                // the write that brings them (it starts the loop again).
                let again = s.nextPosition > durable
                if !again { s.flushing = false }
                return (covered, again)
            }
            for (done, r) in ready { done(r) }
            if !more { return }
        }
    }

    /// Starts a new segment: the current one is made durable first, then the new file and its directory entry.
    private func rotate(_ s: inout State) throws(JournalError) {
        if let fd = s.fd, let path = s.segments.last?.path {
            try JournalSystem.fsync(fd, path: path)
            s.statistics.fsyncs += 1
            try mark.advance(to: s.nextPosition)
            s.durablePosition = s.nextPosition
            // An fsync running on the queue may hold this descriptor: it closes it when done.
            if s.flushing { s.retired.append(fd) } else { try? fd.close() }
            s.fd = nil
        }
        let segment = JournalSegment(firstPosition: s.nextPosition, path: directory + "/" + JournalSegment.name(s.nextPosition))
        // The rate the segment that ends saw sizes a spare asked for at once (`preallocateAfter` 0).
        let nextSpare = Self.spareSize(configuration, s)
        s.spareRequested = false
        s.direct = nil
        s.limit = Int64(configuration.segmentBytes)
        if let (spareFD, direct, size) = takeSpare(), let tail = beginPreallocated(segment, in: spareFD, direct: direct) {
            s.fd = spareFD
            s.appended = false
            s.limit = Int64(size)
            s.direct = tail
            s.statistics.preallocatedSegments += 1
            if tail != nil { s.statistics.directSegments += 1 }
        } else {
            s.appended = true
            try Self.writeFile(segment.path, JournalSegment.header(s.nextPosition))
            do { s.fd = try FileDescriptor.open(FilePath(segment.path), .writeOnly) } catch {
                throw .io(operation: "open", path: segment.path, reason: "\(error)")
            }
            s.statistics.appendedSegments += 1
        }
        try JournalSystem.fsyncDirectory(directory)
        s.segments.append(segment)
        s.fileSize = Int64(JournalSegment.headerSize)
        s.released = 0
        s.began = ContinuousClock.now
        s.sizeAtBegin = s.fileSize
        if configuration.preallocate, s.fileSize >= Self.spareThreshold(configuration, limit: s.limit) {
            s.spareRequested = true
            prepareSpare(size: nextSpare)
        }
    }

    // MARK: Preallocation

    /// Writes a spare segment file of `size` zeros and makes it durable, in the background, unless one is ready.
    private func prepareSpare(size: Int) {
        guard configuration.preallocate else { return }
        spareQueue.async { [self] in
            guard spare.withLock({ $0 == nil }), !poisoned.load(ordering: .acquiring) else { return }
            let path = sparePath
            var fs = statvfs()
            guard statvfs(directory, &fs) == 0, Int(fs.f_bavail) * Int(fs.f_frsize) >= 2 * size else {
                logger.debug("journal: too little free space to preallocate the next segment", metadata: ["bytes": "\(size)"])
                return
            }
            do {
                var direct = true
                let fd = try DirectTail.create(path) ?? {
                    direct = false
                    return try FileDescriptor.open(FilePath(path), .writeOnly, options: [.create, .truncate],
                                                   permissions: [.ownerReadWrite, .groupRead, .otherRead])
                }()
                do {
                    if direct {
                        switch DirectTail.writeZeros(fd, size: size) {
                        case nil: break
                        case .invalidArgument?:
                            DirectTail.stopDirect(fd)
                            direct = false
                        case let error?: throw error
                        }
                    }
                    if !direct {
                        let zeros = [UInt8](repeating: 0, count: min(size, 1 << 20))
                        var at = 0
                        while at < size {
                            let n = min(zeros.count, size - at)
                            at += try zeros.withUnsafeBytes { try fd.write(toAbsoluteOffset: Int64(at), UnsafeRawBufferPointer(rebasing: $0[0..<n]), retryOnInterrupt: true) }
                        }
                    }
                    try JournalSystem.fsync(fd, path: path)
                } catch {
                    try? fd.close()
                    throw error
                }
                spare.withLock { $0 = (fd, direct, size) }
            } catch {
                unlink(path)
                logger.warning("journal: could not preallocate the next segment; it grows as it is written", metadata: [
                    "file": "\(path)", "reason": "\(error)"])
            }
        }
    }

    /// The prepared spare, once a preparation under way has finished (a rotation that comes first waits for it);
    /// nil when there is none.
    private func takeSpare() -> (fd: FileDescriptor, direct: Bool, size: Int)? {
        guard configuration.preallocate else { return nil }
        return spareQueue.sync { spare.withLock { taken in defer { taken = nil }; return taken } }
    }

    /// Gives the spare its header (durable before the rename makes it a segment) and its segment's name; nil,
    /// with the spare deleted, when that fails. The inner value: the tail a direct spare is written through, or
    /// nil for a buffered one.
    private func beginPreallocated(_ segment: JournalSegment, in fd: FileDescriptor, direct: Bool) -> DirectTail?? {
        do {
            let header = JournalSegment.header(segment.firstPosition, preallocated: true)
            var tail: DirectTail? = direct ? DirectTail() : nil
            if let direct = tail {
                switch header.withUnsafeBytes({ direct.write(fd, at: 0, $0, UnsafeRawBufferPointer(start: nil, count: 0)) }) {
                case nil: break
                case .invalidArgument?:
                    DirectTail.stopDirect(fd)
                    tail = nil
                case let error?: throw error
                }
            }
            if tail == nil { _ = try fd.writeAll(toAbsoluteOffset: 0, header) }
            try JournalSystem.fsync(fd, path: sparePath)
            guard rename(sparePath, segment.path) == 0 else {
                throw JournalError.io(operation: "rename", path: sparePath, reason: String(cString: strerror(errno)))
            }
            return .some(tail)
        } catch {
            try? fd.close()
            unlink(sparePath)
            logger.warning("journal: a preallocated segment could not be begun; this one grows as it is written", metadata: [
                "file": "\(segment.path)", "reason": "\(error)"])
            return nil
        }
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
            throw .io(operation: "unlink", path: g.path, reason: String(cString: strerror(errno)))
        }
        try JournalSystem.fsyncDirectory(directory)
    }

    public func close() {
        state.withLock { s in
            if s.flushing, let fd = s.fd { s.retired.append(fd) } else { try? s.fd?.close() }
            s.fd = nil
            s.poison = s.poison ?? "closed"
            poisoned.store(true, ordering: .releasing)
        }
    }

    /// Writes `count` zeros at `offset` of `path` and makes them durable.
    private static func zero(_ path: String, from offset: Int64, count: Int) throws(JournalError) {
        do {
            let fd = try FileDescriptor.open(FilePath(path), .writeOnly)
            try fd.closeAfter {
                _ = try fd.writeAll(toAbsoluteOffset: offset, [UInt8](repeating: 0, count: count))
                try JournalSystem.fsync(fd, path: path)
            }
        } catch let e as JournalError {
            throw e
        } catch {
            throw .io(operation: "write", path: path, reason: "\(error)")
        }
    }

    private static func truncate(_ path: String, to size: Int64) throws(JournalError) {
        if Glibc.truncate(path, off_t(size)) != 0 {
            throw .io(operation: "truncate", path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Whether a segment file is what a crash during `rotate` leaves: no longer than a header, and either a prefix of
    /// the header it was being given or zeros (a size made durable before the data).
    static func isCutShortHeader(_ bytes: [UInt8], first: UInt64) -> Bool {
        bytes.count <= JournalSegment.headerSize && (bytes.allSatisfy { $0 == 0 } || JournalSegment.header(first).starts(with: bytes))
    }

    private static func writeFile(_ path: String, _ bytes: [UInt8]) throws(JournalError) {
        do {
            let fd = try FileDescriptor.open(FilePath(path), .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try fd.closeAfter {
                _ = try fd.writeAll(bytes)
                try JournalSystem.fsync(fd, path: path)
            }
        } catch let e as JournalError {
            throw e
        } catch {
            throw .io(operation: "write", path: path, reason: "\(error)")
        }
    }

    private static func moveAside(_ paths: [String], because reason: String, logger: Logger) throws(JournalError) -> [String] {
        var out: [String] = []
        for p in paths {
            let aside = p + ".damaged"
            if rename(p, aside) != 0 { throw .io(operation: "rename", path: p, reason: String(cString: strerror(errno))) }
            out.append("\(p) moved to \(aside) (\(reason))")
            logger.critical("journal: file moved aside (--recover)", metadata: ["file": "\(p)", "moved": "\(aside)", "reason": "\(reason)"])
        }
        return out
    }
}
