import Sinks
import Storage

/// The outbox's element and the store's row for it (dead letters, the legacy outbox table) are converted here, at
/// the boundary, so Storage names none of Delivery's types.
extension OutboxEntry {
    public init(_ stored: StoredNotification) {
        self.init(sequence: stored.sequence, deliveryId: stored.deliveryId, identifier: stored.identifier, device: stored.device,
                  json: stored.json, createdAt: stored.createdAt, enqueuedAt: stored.enqueuedAt)
    }
}

extension StoredNotification {
    public init(_ entry: OutboxEntry) {
        self.init(sequence: entry.sequence, deliveryId: entry.deliveryId, identifier: entry.identifier, device: entry.device,
                  json: entry.json, createdAt: entry.createdAt, enqueuedAt: entry.enqueuedAt)
    }
}
