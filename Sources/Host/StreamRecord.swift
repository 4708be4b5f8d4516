import EngineLog
import TriggerEngine

/// One durable journal record as the event streams (`GET /v1/stream`) see it: its position, the notifications it
/// fired and, when some reader asked for device positions, the fixes it carried.
public struct StreamRecord: Sendable {
    public let position: UInt64
    public let notifications: [RecordedNotification]
    /// Empty unless a reader wanted positions when the record was written (or the record was read again from the
    /// journal for a reader that wants them).
    public let fixes: [LocationFix]

    public init(position: UInt64, notifications: [RecordedNotification], fixes: [LocationFix] = []) {
        self.position = position
        self.notifications = notifications
        self.fixes = fixes
    }
}
