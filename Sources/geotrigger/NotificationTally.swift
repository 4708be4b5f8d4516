import TriggerEngine

/// A replay's notifications counted per region, for its summary.
struct NotificationTally: Sendable {
    var transitions: [String: (entries: Int, exits: Int)] = [:]
    var notifications = 0

    mutating func record(_ n: FiredNotification) {
        notifications += 1
        // One lookup, modified in place: a notification-dense replay records hundreds of thousands.
        if n.event == .entry { transitions[n.regionID, default: (0, 0)].entries += 1 } else { transitions[n.regionID, default: (0, 0)].exits += 1 }
    }
}
