import Dispatch
import Logging
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// An append-only journal of framed, checksummed records in segment files: the durable order of everything a host
/// accepted. `append` returns once its records are on disk (fsync); appends that arrive while an fsync runs share
/// the next one (group commit), so many concurrent requests cost one fsync, not one each.
///
/// Every record has a position (0, 1, 2, …). A checkpoint names the position it covers; `dropSegments(before:)`
/// then frees what no one needs any more.
public actor Journal {
    public struct Configuration: Sendable {
        /// A new segment starts once the current one would grow past this.
        public var segmentBytes: Int = 64 << 20
        /// Damage inside the journal (not a torn tail) refuses to open unless this is set: then the records before
        /// the damage are kept, the rest is moved aside (`*.damaged`), and the report says what was skipped.
        public var recover = false
        public init(segmentBytes: Int = 64 << 20, recover: Bool = false) {
            self.segmentBytes = segmentBytes
            self.recover = recover
        }
    }

    /// What opening found and did, for the start-up log.
    public struct OpenReport: Sendable {
        public var segments = 0
        public var records: UInt64 = 0
        /// A torn tail cut off: file, offset, bytes removed, why.
        public var tornTail: (path: String, offset: Int64, bytes: Int64, reason: String)?
        /// With `recover`: damage skipped (file, offset, why) and the files moved aside.
        public var skipped: [String] = []
    }

    /// Counters for metrics and tests.
    public struct Statistics: Sendable {
        public var appends = 0
        public var records: UInt64 = 0
        public var bytes: Int64 = 0
        public var fsyncs = 0
    }

    public nonisolated let directory: String
    public nonisolated let configuration: Configuration
    public nonisolated let openReport: OpenReport
    public private(set) var statistics = Statistics()

    private var segments: [JournalSegment]
    private var fd: FileDescriptor?
    private var fileSize: Int64
    /// The position the next record gets, and the first one not yet known durable.
    public private(set) var nextPosition: UInt64
    public private(set) var durablePosition: UInt64
    private var flushing = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var poison: String?
    private let logger: Logger
    private let syncQueue = DispatchQueue(label: "geotrigger-journal-fsync")

    /// Opens (or creates) the journal in `directory`, checking every segment: a torn tail is cut off and logged;
    /// other damage throws `JournalError.damaged` with the file and offset, unless `configuration.recover`.
    public init(directory: String, configuration: Configuration = Configuration(), logger: Logger) throws(JournalError) {
        self.directory = directory
        self.configuration = configuration
        self.logger = logger
        if mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw .io(operation: "mkdir", path: directory, reason: String(cString: strerror(errno)))
        }
        var found = try JournalSystem.segments(in: directory)
        var report = OpenReport()
        var next: UInt64 = found.first?.firstPosition ?? 0
        var lastSize = Int64(JournalSegment.headerSize)
        var k = 0
        while k < found.count {
            let segment = found[k]
            let isLast = k == found.count - 1
            guard segment.firstPosition == next else {
                let reason = "starts at record \(segment.firstPosition), expected \(next) (a segment is missing)"
                guard configuration.recover else { throw .damaged(path: segment.path, offset: 0, reason: reason) }
                report.skipped += try Self.moveAside(found[k...].map(\.path), because: reason)
                found.removeSubrange(k...)
                break
            }
            let bytes = try JournalSystem.readAll(segment.path)
            let scan = JournalSegment.scan(bytes, firstPosition: segment.firstPosition)
            next = segment.firstPosition + UInt64(scan.records.count)
            lastSize = Int64(scan.validEnd)
            if let problem = scan.problem {
                if problem.tornTail && isLast && problem.offset >= JournalSegment.headerSize {
                    try Self.truncate(segment.path, to: Int64(problem.offset))
                    report.tornTail = (segment.path, Int64(problem.offset), Int64(bytes.count - problem.offset), problem.reason)
                    logger.warning("journal: torn tail cut off", metadata: [
                        "file": "\(segment.path)", "offset": "\(problem.offset)", "bytes": "\(bytes.count - problem.offset)",
                        "reason": "\(problem.reason)"])
                } else {
                    guard configuration.recover else {
                        throw .damaged(path: segment.path, offset: Int64(problem.offset), reason: problem.reason)
                    }
                    // Keep what comes before the damage; the rest of this file and every later file go aside.
                    let aside = segment.path + ".damaged-\(problem.offset)"
                    try Self.writeFile(aside, Array(bytes[min(problem.offset, bytes.count)...]))
                    try Self.truncate(segment.path, to: Int64(max(problem.offset, JournalSegment.headerSize)))
                    if problem.offset < JournalSegment.headerSize { try Self.writeFile(segment.path, JournalSegment.header(segment.firstPosition)) }
                    report.skipped.append("\(segment.path) from byte \(problem.offset) (\(problem.reason)) moved to \(aside)")
                    report.skipped += try Self.moveAside(found[(k + 1)...].map(\.path), because: "after damage in \(segment.path)")
                    found.removeSubrange((k + 1)...)
                    lastSize = Int64(max(problem.offset, JournalSegment.headerSize))
                    logger.critical("journal: damage skipped (--recover)", metadata: [
                        "file": "\(segment.path)", "offset": "\(problem.offset)", "reason": "\(problem.reason)"])
                    break
                }
            }
            k += 1
        }
        report.segments = found.count
        report.records = next - (found.first?.firstPosition ?? next)
        segments = found
        nextPosition = next
        durablePosition = next
        fileSize = lastSize
        openReport = report
        if found.isEmpty {
            fd = nil
        } else {
            do { fd = try FileDescriptor.open(FilePath(found[found.count - 1].path), .writeOnly) } catch {
                throw .io(operation: "open", path: found[found.count - 1].path, reason: "\(error)")
            }
        }
    }

    /// Appends `records` in order and returns their positions once they are durable. Concurrent appends share fsyncs.
    /// A failed write is cut back (nothing half-written stays) and throws; a failed fsync poisons the journal.
    @discardableResult
    public func append(_ records: [JournalRecord]) async throws(JournalError) -> Range<UInt64> {
        if let poison { throw .poisoned(reason: poison) }
        guard !records.isEmpty else { return nextPosition..<nextPosition }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + $1.payload.count + 9 })
        for r in records { JournalFrame.append(r, to: &bytes) }
        if fd == nil || (fileSize > Int64(JournalSegment.headerSize) && fileSize + Int64(bytes.count) > Int64(configuration.segmentBytes)) {
            try rotate()
        }
        guard let fd, let path = segments.last?.path else { throw .closed }
        do {
            var done = 0
            while done < bytes.count {
                done += try bytes.withUnsafeBytes {
                    try fd.write(toAbsoluteOffset: fileSize + Int64(done), UnsafeRawBufferPointer(rebasing: $0[done...]), retryOnInterrupt: true)
                }
            }
        } catch {
            // ENOSPC part-way: cut back to the last whole frame, so a retry appends after good data.
            do { try fd.resize(to: fileSize, retryOnInterrupt: true) } catch {
                poison = "a failed write could not be cut back: \(error)"
            }
            throw .io(operation: "write", path: path, reason: "\(error)")
        }
        let first = nextPosition
        fileSize += Int64(bytes.count)
        nextPosition += UInt64(records.count)
        statistics.appends += 1
        statistics.records += UInt64(records.count)
        statistics.bytes += Int64(bytes.count)
        let target = nextPosition
        while durablePosition < target {
            if let poison { throw .poisoned(reason: poison) }
            if flushing {
                await withCheckedContinuation { waiters.append($0) }
            } else {
                try await flush()
            }
        }
        return first..<target
    }

    /// One fsync of the current segment, off the actor so appends keep writing meanwhile; then every waiter
    /// re-checks whether it is covered.
    private func flush() async throws(JournalError) {
        guard let fd, let path = segments.last?.path else { throw .closed }
        flushing = true
        let upTo = nextPosition
        let result: Result<Void, JournalError> = await withCheckedContinuation { c in
            syncQueue.async {
                do throws(JournalError) { try JournalSystem.fsync(fd, path: path); c.resume(returning: .success(())) } catch {
                    c.resume(returning: .failure(error))
                }
            }
        }
        flushing = false
        statistics.fsyncs += 1
        switch result {
        case .success: durablePosition = max(durablePosition, upTo)
        case .failure(let e): poison = "\(e)"
        }
        let resumed = waiters
        waiters.removeAll()
        for w in resumed { w.resume() }
        if case .failure(let e) = result { throw e }
    }

    /// Starts a new segment: the current one is made durable first, then the new file and its directory entry.
    private func rotate() throws(JournalError) {
        if let fd, let path = segments.last?.path {
            try JournalSystem.fsync(fd, path: path)
            statistics.fsyncs += 1
            try? fd.close()
            durablePosition = nextPosition
        }
        let segment = JournalSegment(firstPosition: nextPosition, path: directory + "/" + JournalSegment.name(nextPosition))
        try Self.writeFile(segment.path, JournalSegment.header(nextPosition))
        try JournalSystem.fsyncDirectory(directory)
        do { fd = try FileDescriptor.open(FilePath(segment.path), .writeOnly) } catch {
            throw .io(operation: "open", path: segment.path, reason: "\(error)")
        }
        segments.append(segment)
        fileSize = Int64(JournalSegment.headerSize)
    }

    /// Deletes the segments whose records all come before `position` (covered by a checkpoint and delivered).
    /// The current segment is kept.
    public func dropSegments(before position: UInt64) throws(JournalError) {
        while segments.count > 1, segments[1].firstPosition <= position {
            let s = segments.removeFirst()
            if unlink(s.path) != 0 { throw .io(operation: "unlink", path: s.path, reason: String(cString: strerror(errno))) }
        }
        try JournalSystem.fsyncDirectory(directory)
    }

    /// The first position still on disk.
    public var firstPosition: UInt64 { segments.first?.firstPosition ?? nextPosition }

    public func close() {
        try? fd?.close()
        fd = nil
    }

    private static func truncate(_ path: String, to size: Int64) throws(JournalError) {
        if Glibc.truncate(path, off_t(size)) != 0 {
            throw .io(operation: "truncate", path: path, reason: String(cString: strerror(errno)))
        }
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

    private static func moveAside(_ paths: [String], because reason: String) throws(JournalError) -> [String] {
        var out: [String] = []
        for p in paths {
            let aside = p + ".damaged"
            if rename(p, aside) != 0 { throw .io(operation: "rename", path: p, reason: String(cString: strerror(errno))) }
            out.append("\(p) moved to \(aside) (\(reason))")
        }
        return out
    }
}
