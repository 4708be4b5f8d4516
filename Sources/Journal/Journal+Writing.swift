import Dispatch
import Synchronization
import Logging
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Writing, group commit and rotation: the path every acknowledged record takes.
extension Journal: DurableWaiting {
    /// Writes `records` after everything written before, and returns their positions. They are in the file (the
    /// page cache) but not yet durable: acknowledge nothing before `whenDurable(through: range.upperBound, …)` answers.
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
            // With a sync interval every write makes sure the timed fsync is coming (nobody waits to start it).
            let flush = (startingSync || interval != nil) && !s.flushing
            if flush { s.flushing = true }
            return (first..<s.nextPosition, flush)
        }
        if flush { startFlush() }
        return range
    }

    /// The sync interval, nil for `always`.
    var interval: Duration? {
        if case .interval(let d) = configuration.sync { return d }
        return nil
    }

    /// Runs the flush loop on `syncQueue`: now, or an interval from now. The caller set `flushing`.
    func startFlush() {
        if let interval {
            let c = interval.components
            let nanoseconds = Int(c.seconds) * 1_000_000_000 + Int(c.attoseconds / 1_000_000_000)
            syncQueue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { self.flushLoop() }
        } else {
            syncQueue.async { self.flushLoop() }
        }
    }

    /// Makes everything written durable on the calling thread, and answers the waiters it covers there; returns
    /// at once when an fsync already running will cover it (that one loops while anything is unsynced). With a sync
    /// interval the writes' timed fsync does it (`waitingForInterval`), unless the caller needs it now (a close).
    public func syncNow(waitingForInterval: Bool = true) {
        if interval != nil, waitingForInterval { return }
        let run = state.withLock { s -> Bool in
            guard !s.flushing, s.nextPosition > s.durablePosition else { return false }
            s.flushing = true
            return true
        }
        if run {
            flushLoop(mode: .now)
        } else if interval != nil, !waitingForInterval {
            // A timed fsync is pending: do its work now (it finds nothing left when it runs).
            syncQueue.sync { self.flushLoop(mode: .pending) }
        }
    }

    /// One `pwritev` of a frame's header and payload; returns the bytes written (fewer than both only when the
    /// disk is filling up).
    static func writeHeaderAndPayload(_ fd: FileDescriptor, header: [UInt8], payload: [UInt8], at offset: Int64) throws(Errno) -> Int {
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

    /// The journal's side of `DurableWaiting`: `synced` waits for the fsync that covers `position` (waiters that
    /// arrive while one runs share the next); `acknowledgeable` is `synced` unless a sync interval lets a written
    /// record be answered at once; `syncedNow` also runs a pending timed fsync now. Answered on the fsync's thread,
    /// or at once on the caller's. A failed fsync poisons the journal: this and every later call fails.
    public func whenDurable(through position: UInt64, _ level: Durability, _ done: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        if interval != nil {
            switch level {
            case .acknowledgeable:
                let written = state.withLock { s -> Result<Void, JournalError>? in
                    if let poison = s.poison { return .failure(.poisoned(reason: poison)) }
                    return position <= s.nextPosition ? .success(()) : nil
                }
                if let written { return done(written) }
            case .syncedNow:
                // Not on `syncQueue`: `syncNow` may wait on it for a pending timed run.
                if position <= nextPosition { DispatchQueue.global().async { self.syncNow(waitingForInterval: false) } }
            case .synced:
                break
            }
        }
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
        case .flush: startFlush()
        case .wait: break
        }
    }

    /// How `flushLoop` was started: by `startFlush` (its interval, if any, has passed), by `syncNow` on the caller's
    /// thread, or on the queue to do the work of a timed run still pending (`flushing` then stays set for it).
    enum FlushMode { case started, now, pending }

    /// Runs on `syncQueue` (or on `syncNow`'s caller) while something written is not yet durable: fsync it, wake the
    /// waiters it covers, repeat (with a sync interval: an interval later).
    func flushLoop(mode: FlushMode = .started) {
        while true {
            let (fd, path, upTo, synced, released) = state.withLock { s in
                // A segment written past the page cache has nothing in it to give back.
                (s.fd, s.segments.last?.path ?? directory, s.nextPosition, s.fileSize, s.direct == nil ? s.released : Int64.max)
            }
            if mode == .pending, upTo <= state.withLock({ $0.durablePosition }) { return }
            var failure: JournalError?
            if let fd {
                do throws(JournalError) {
                    try JournalSystem.fdatasync(fd, path: path)
                    // Before anyone is told: the mark then covers every acknowledged record (`AcknowledgedMark`).
                    // With a sync interval the records were acknowledged before this fsync; the mark is written
                    // without one of its own (it can only lag behind what is durable, and a closing sync makes it
                    // exact).
                    try mark.advance(to: upTo, sync: interval == nil || mode != .started)
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
                if !again, mode != .pending { s.flushing = false }
                return (covered, again)
            }
            for (done, r) in ready { done(r) }
            if !more { return }
            // With a sync interval, what was written during this fsync waits for the next interval.
            if interval != nil, mode == .started { return startFlush() }
        }
    }

    /// Starts a new segment: the current one is made durable first, then the new file and its directory entry.
    func rotate(_ s: inout State) throws(JournalError) {
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
        if let (spareFD, direct, size) = takeSpare(), var tail = beginPreallocated(segment, in: spareFD, direct: direct) {
            if tail != nil, !configuration.sync.writesDirect {
                DirectTail.stopDirect(spareFD)
                tail = nil
            }
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
}
