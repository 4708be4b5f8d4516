import TriggerEngine

/// An entry a sink refused for good (a 4xx other than 408 and 429, say), with its answer. It counts as settled for
/// its sink; a replay request makes the sink try it once more.
public struct DeadLetter: Sendable, Hashable {
    public var id: Int64
    public var sink: String
    public var entry: StoredNotification
    /// The HTTP status, when the sink speaks HTTP.
    public var status: Int?
    /// The start of the sink's answer (or the error), for whoever investigates.
    public var response: String
    public var failedAt: Timestamp
    public var attempts: Int
    public var replayRequestedAt: Timestamp?
}
