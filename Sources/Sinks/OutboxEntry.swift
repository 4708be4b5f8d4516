import TriggerEngine

/// One fired notification waiting in, or delivered from, the outbox.
public struct OutboxEntry: Sendable, Hashable {
    /// Position in firing order; sinks deliver in this order (per device when they deliver devices concurrently).
    public var sequence: Int64
    public var deliveryId: String
    public var identifier: String
    public var device: String
    /// The SPEC §4 JSON object, one line.
    public var json: String
    /// The notification's `firedAt` (engine time: input time when replaying).
    public var createdAt: Timestamp
    /// Wall-clock time it entered the outbox; nil for entries written before schema v2.
    public var enqueuedAt: Timestamp?

    public init(sequence: Int64, deliveryId: String, identifier: String, device: String, json: String, createdAt: Timestamp,
                enqueuedAt: Timestamp? = nil) {
        self.sequence = sequence
        self.deliveryId = deliveryId
        self.identifier = identifier
        self.device = device
        self.json = json
        self.createdAt = createdAt
        self.enqueuedAt = enqueuedAt
    }
}
