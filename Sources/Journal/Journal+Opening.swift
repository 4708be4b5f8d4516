import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Opening: every segment read and checked in order, torn tails cut off, damage refused (or, with `recover`,
/// moved aside and its positions recorded).
extension Journal {
    /// What reading the segments found so far, and where the next one must start.
    struct Opening {
        var found: [JournalSegment]
        /// The position the next segment must start at.
        var next: UInt64
        var report: OpenReport
        var skippedNow: [SkippedRange]
        /// Why the next segment may start after `next` (damage cut the one before short).
        var gapReason: String?
        var records: UInt64 = 0
        var lastSize = Int64(JournalSegment.headerSize)
        var lastPreallocated = false
        /// The bytes of the last segment's last, partly written block (a reopened preallocated segment's direct tail).
        var lastBlock: ArraySlice<UInt8> = []
        var lastFileSize = Int64(0)
    }

    /// Reads every segment in `o.found` in order. A torn tail past everything durable names (`evidence`) is cut
    /// off and logged; anything else throws `JournalError.damaged` with the file and offset, unless `recover`.
    static func readSegments(_ o: inout Opening, known: [SkippedRange], evidence: (position: UInt64, source: String),
                             recover: Bool, logger: Logger) throws(JournalError) {
        var k = 0
        while k < o.found.count {
            let segment = o.found[k]
            let isLast = k == o.found.count - 1
            if segment.firstPosition < o.next {
                let reason = "starts at record \(segment.firstPosition), inside the segment before it (which ends at record \(o.next))"
                guard recover else { throw .damaged(path: segment.path, offset: 0, reason: reason) }
                o.report.skipped += try Self.moveAside([segment.path], because: reason, logger: logger)
                o.found.remove(at: k)
                continue
            }
            if segment.firstPosition > o.next {
                let gap = o.next..<segment.firstPosition
                if !SkippedRange.cover(known + o.skippedNow, gap) {
                    let reason = o.gapReason ?? "missing: \(segment.path) starts at record \(segment.firstPosition), expected \(o.next) (a segment is missing)"
                    guard recover else { throw .damaged(path: segment.path, offset: 0, reason: reason) }
                    o.skippedNow.append(SkippedRange(records: gap, reason: reason))
                }
                o.next = segment.firstPosition
            }
            o.gapReason = nil
            let bytes = try JournalSystem.readAll(segment.path)
            let scan = JournalSegment.scan(bytes, firstPosition: segment.firstPosition)
            o.next = segment.firstPosition + UInt64(scan.records.count)
            o.records += UInt64(scan.records.count)
            o.lastSize = Int64(scan.validEnd)
            o.lastPreallocated = scan.preallocated
            if isLast {
                let end = min(scan.validEnd, bytes.count)  // a file shorter than a header has no valid bytes
                o.lastBlock = bytes[(end / DirectTail.alignment * DirectTail.alignment)..<end]
                o.lastFileSize = Int64(bytes.count)
            }
            if let problem = scan.problem {
                if isLast, problem.offset == 0, o.next >= evidence.position, Self.isCutShortHeader(bytes, first: segment.firstPosition) {
                    // A rotation cut short by the crash: the new file exists, its header was not (wholly) written,
                    // and it cannot hold a record. Its header is written again; nothing is lost.
                    try Self.writeFile(segment.path, JournalSegment.header(segment.firstPosition))
                    o.lastSize = Int64(JournalSegment.headerSize)
                    o.report.tornTail = (segment.path, 0, Int64(bytes.count), "a new segment's header cut short (\(bytes.count) bytes)")
                    logger.warning("journal: a segment created just before the crash had no header; written again", metadata: [
                        "file": "\(segment.path)", "bytes": "\(bytes.count)"])
                } else if problem.tornTail && isLast && problem.offset >= JournalSegment.headerSize && o.next >= evidence.position {
                    // Past everything durable names, and what a write cut short leaves: never acknowledged. In a
                    // preallocated segment the torn bytes are zeroed where they are, so the blocks after them stay
                    // allocated; elsewhere the file is cut.
                    let torn = Int64((scan.preallocated ? scan.dataEnd : bytes.count) - problem.offset)
                    if scan.preallocated {
                        try Self.zero(segment.path, from: Int64(problem.offset), count: Int(torn))
                    } else {
                        try Self.truncate(segment.path, to: Int64(problem.offset))
                    }
                    o.report.tornTail = (segment.path, Int64(problem.offset), torn, problem.reason)
                    logger.warning("journal: torn tail cut off", metadata: [
                        "file": "\(segment.path)", "offset": "\(problem.offset)", "bytes": "\(torn)",
                        "reason": "\(problem.reason)"])
                } else {
                    var reason = "record \(o.next): \(problem.reason)"
                    if isLast, problem.tornTail, o.next < evidence.position {
                        reason += " (not a torn tail: \(evidence.source) names record \(evidence.position - 1))"
                    }
                    guard recover else { throw .damaged(path: segment.path, offset: Int64(problem.offset), reason: reason) }
                    // Keep what comes before the damage; the rest of this file goes aside, the later files stay.
                    let aside = segment.path + ".damaged-\(problem.offset)"
                    try Self.writeFile(aside, Array(bytes[min(problem.offset, bytes.count)...]))
                    try Self.truncate(segment.path, to: Int64(max(problem.offset, JournalSegment.headerSize)))
                    if problem.offset < JournalSegment.headerSize { try Self.writeFile(segment.path, JournalSegment.header(segment.firstPosition)) }
                    o.lastSize = Int64(max(problem.offset, JournalSegment.headerSize))
                    o.lastPreallocated = false
                    let what = "\(segment.path) from byte \(problem.offset) (\(reason)) moved to \(aside)"
                    o.report.skipped.append(what)
                    o.gapReason = "unreadable: \(what)"
                    logger.critical("journal: damage skipped (--recover)", metadata: [
                        "file": "\(segment.path)", "offset": "\(problem.offset)", "reason": "\(reason)", "moved": "\(aside)"])
                }
            }
            k += 1
        }
    }
}
