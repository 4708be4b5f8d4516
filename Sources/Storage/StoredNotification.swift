import TriggerEngine

/// A fired notification as the store keeps it: beside a dead letter, and in the outbox table of the versions that
/// copied every notification into SQLite. Storage's own row, so the store names none of Delivery's types; Delivery
/// converts at the boundary (`StoredNotification+Stored`).
public struct StoredNotification: Sendable, Hashable {
    /// Position in firing order.
    public var sequence: Int64
    public var deliveryId: String
    /// Empty for a dead letter: its table does not keep it.
    public var identifier: String
    public var device: String
    /// The SPEC §4 JSON object, one line.
    public var json: String
    /// The notification's `firedAt`; for a dead letter, the time it was enqueued (its table keeps that one time).
    public var createdAt: Timestamp
    /// Wall-clock time it entered the outbox; nil for rows written before schema v2.
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
