/// Journal records a recovery (`--recover`) gave up: positions no record holds any more, and why. Kept durably in
/// `skipped.ranges` beside the segments, so that a later start accepts the gap they leave (and reports it) instead
/// of taking it for new damage, and so that positions after a recovery never repeat one a checkpoint, a sink
/// cursor or an acknowledgement named.
public struct SkippedRange: Sendable, Hashable, CustomStringConvertible {
    public var records: Range<UInt64>
    public var reason: String

    public init(records: Range<UInt64>, reason: String) {
        self.records = records
        self.reason = reason
    }

    public var description: String {
        "records \(records.lowerBound)..<\(records.upperBound) (\(records.count)): \(reason)"
    }

    /// Whether `ranges` together cover every position of `gap` (an empty gap is covered).
    public static func cover(_ ranges: [SkippedRange], _ gap: Range<UInt64>) -> Bool {
        var from = gap.lowerBound
        for r in ranges.map(\.records).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if from >= gap.upperBound { break }
            if r.lowerBound > from { break }
            from = max(from, r.upperBound)
        }
        return from >= gap.upperBound
    }
}
