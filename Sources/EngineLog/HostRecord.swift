import TriggerEngine

/// One journal record of the host: an input and the notifications it fired, written together so that a torn tail
/// never keeps an input without its notifications (or the reverse).
///
/// Payload: the input (by kind, see `HostRecord+Coding`), then the notifications: a count and each one's
/// deliveryId, identifier, device, firedAt and JSON line.
public struct HostRecord: Sendable, Hashable {
    public var input: HostInput
    public var notifications: [RecordedNotification]

    public init(input: HostInput, notifications: [RecordedNotification] = []) {
        self.input = input
        self.notifications = notifications
    }
}
