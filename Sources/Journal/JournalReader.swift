/// Reads a journal's records in order from a position, segment by segment (a service's journal, or a copy of one
/// for `replay`). It reads what is on disk when each segment is opened and never writes: a torn tail ends the
/// reading quietly, other damage throws with the file and offset once the records before it are read.
public struct JournalReader: Sendable {
    public let directory: String
    private var segments: [JournalSegment]
    private var buffered: [(position: UInt64, offset: Int, record: JournalRecord)] = []
    private var index = 0
    private var from: UInt64
    /// Damage found in the segment being read: thrown once the records before it are handed out.
    private var damage: JournalError?
    /// Where the segment read last ends: the next must start there, or after a gap a recovery recorded.
    private var expected: UInt64?
    private let skipped: [SkippedRange]
    /// Records before this were acknowledged (`AcknowledgedMark`): a torn tail can only lie past it.
    private let acknowledged: UInt64

    public init(directory: String, from position: UInt64 = 0) throws(JournalError) {
        self.directory = directory
        self.from = position
        let all = try JournalSystem.segments(in: directory)
        // Start at the last segment that begins at or before `position`.
        let start = all.lastIndex { $0.firstPosition <= position } ?? 0
        segments = Array(all[start...])
        skipped = try SkippedRangesFile.read(directory: directory)
        acknowledged = try AcknowledgedMark.read(directory: directory)?.end ?? 0
    }

    /// The next record, or nil at the end.
    public mutating func next() throws(JournalError) -> (position: UInt64, record: JournalRecord)? {
        while true {
            if index < buffered.count {
                let r = buffered[index]
                index += 1
                if r.position < from { continue }
                return (r.position, r.record)
            }
            if let damage {
                self.damage = nil
                segments.removeAll()
                throw damage
            }
            guard !segments.isEmpty else { return nil }
            let segment = segments.removeFirst()
            if let expected, segment.firstPosition != expected,
               segment.firstPosition < expected || !SkippedRange.cover(skipped, expected..<segment.firstPosition) {
                segments.removeAll()
                throw .damaged(path: segment.path, offset: 0,
                               reason: "starts at record \(segment.firstPosition), expected \(expected) (a segment is missing or out of place)")
            }
            let bytes = try JournalSystem.readAll(segment.path)
            let scan = JournalSegment.scan(bytes, firstPosition: segment.firstPosition)
            // The last segment may end torn, or be a new file whose header a crash cut short (`Journal.init`).
            let pastAcknowledged = segment.firstPosition + UInt64(scan.records.count) >= acknowledged
            let crashLeftover = pastAcknowledged
                && (scan.problem.map { $0.tornTail || ($0.offset == 0 && Journal.isCutShortHeader(bytes, first: segment.firstPosition)) } ?? false)
            if let problem = scan.problem, !(crashLeftover && segments.isEmpty) {
                damage = .damaged(path: segment.path, offset: Int64(problem.offset), reason: problem.reason)
            }
            buffered = scan.records
            index = 0
            expected = segment.firstPosition + UInt64(scan.records.count)
        }
    }
}
