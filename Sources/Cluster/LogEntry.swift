/// A message read back from an ordered log: its sequence (JetStream's stream sequence; a Kafka offset + 1, so
/// both count from 1) and its bytes.
public struct LogEntry: Sendable, Equatable {
    public var sequence: UInt64
    public var data: [UInt8]

    public init(sequence: UInt64, data: [UInt8]) {
        self.sequence = sequence
        self.data = data
    }
}

/// Reads one log in order from a position; made again from where its owner is after any failure.
protocol OrderedLogReader {
    /// Up to `count` entries, waiting up to `timeout` for the first; none when nothing is new.
    func fetch(_ count: Int, timeout: Duration) throws -> [LogEntry]
}
