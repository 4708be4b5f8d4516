/// An entry a sink refused for good, as it becomes a dead letter when the sink settles its cursor past it.
public struct RefusedEntry: Sendable, Hashable {
    public var entry: StoredNotification
    /// The HTTP status, when the sink speaks HTTP.
    public var status: Int?
    /// The start of the sink's answer (or the error).
    public var response: String
    /// Delivery attempts made.
    public var attempts: Int

    public init(entry: StoredNotification, status: Int?, response: String, attempts: Int) {
        self.entry = entry
        self.status = status
        self.response = response
        self.attempts = attempts
    }
}
