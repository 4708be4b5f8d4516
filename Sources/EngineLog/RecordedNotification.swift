import TriggerEngine

/// A notification as the journal keeps it: what the outbox needs, rendered once when it fired.
public struct RecordedNotification: Sendable, Hashable {
    public var deliveryId: String
    public var identifier: String
    public var device: String
    public var firedAt: Timestamp
    /// The notification as one line of JSON (no newline), the bytes every sink delivers.
    public var json: String

    public init(deliveryId: String, identifier: String, device: String, firedAt: Timestamp, json: String) {
        self.deliveryId = deliveryId
        self.identifier = identifier
        self.device = device
        self.firedAt = firedAt
        self.json = json
    }

    public init(_ n: FiredNotification) {
        self.init(deliveryId: n.deliveryId, identifier: n.identifier, device: n.device, firedAt: n.firedAt, json: n.jsonLine)
    }
}
