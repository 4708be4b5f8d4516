import TriggerEngine

/// One fired notification waiting in, or delivered from, the outbox.
public struct OutboxEntry: Sendable, Hashable {
    /// Position in firing order; sinks deliver in this order.
    public var sequence: Int64
    public var deliveryId: String
    public var identifier: String
    public var device: String
    /// The SPEC §4 JSON object, one line.
    public var json: String
    public var createdAt: Timestamp

    public init(sequence: Int64, deliveryId: String, identifier: String, device: String, json: String, createdAt: Timestamp) {
        self.sequence = sequence
        self.deliveryId = deliveryId
        self.identifier = identifier
        self.device = device
        self.json = json
        self.createdAt = createdAt
    }
}
