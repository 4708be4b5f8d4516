import TriggerEngine

/// A `repeats: false` request that fired and left the pending listing.
public struct DeliveredEntry: Sendable, Hashable {
    public var identifier: String
    public var json: String
    public var device: String
    public var deliveredAt: Timestamp

    public init(identifier: String, json: String, device: String, deliveredAt: Timestamp) {
        self.identifier = identifier
        self.json = json
        self.device = device
        self.deliveredAt = deliveredAt
    }
}
