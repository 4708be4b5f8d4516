import TriggerEngine

/// A journal record the host cannot read: the position, and why. Refuses a restart (or a replay), like other
/// damage: it is never skipped silently.
public struct HostRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    public var position: UInt64
    public var reason: String
    public var description: String { "journal record \(position): \(reason)" }
    public init(position: UInt64, reason: String) {
        self.position = position
        self.reason = reason
    }
}
