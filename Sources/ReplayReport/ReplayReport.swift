import Geometry
import TriggerEngine

/// Collects what a replay did — regions, tracks, inside intervals, notifications — and renders one self-contained
/// HTML page: an SVG map with pan and zoom, a per-device timeline, and a table of notifications. No network, no
/// external scripts or tiles.
public struct ReplayReport {
    struct Interval {
        var device: String
        var identifier: String
        var region: String
        var start: Timestamp
        var end: Timestamp?
    }

    /// Points kept per device track; longer tracks keep every n-th point (the map is an overview).
    public let maximumPointsPerDevice: Int
    private var requests: [NotificationRequest]
    private var tracks: [String: [(Timestamp, Double, Double)]] = [:]
    private var seen: [String: Int] = [:]
    private var deviceOrder: [String] = []
    private var open: [String: [String: Interval]] = [:]
    private var intervals: [Interval] = []
    private var notifications: [FiredNotification] = []
    private var first = Timestamp.distantFuture
    private var last = Timestamp.distantPast

    public init(requests: [NotificationRequest], maximumPointsPerDevice: Int = 5000) {
        self.requests = requests
        self.maximumPointsPerDevice = maximumPointsPerDevice
    }

    /// Records a fix and the device's memberships after it (from `TriggerEngine.status(ofDevice:)`).
    public mutating func record(_ fix: LocationFix, inside: [DeviceStatus.Membership]) {
        first = min(first, fix.timestamp)
        last = max(last, fix.timestamp)
        if tracks[fix.device] == nil { deviceOrder.append(fix.device) }
        let n = seen[fix.device, default: 0]
        seen[fix.device] = n + 1
        // Thin long tracks evenly: keep every 2^k-th point once the cap is reached.
        let stride = max(1, n / maximumPointsPerDevice + 1)
        if n % stride == 0 { tracks[fix.device, default: []].append((fix.timestamp, fix.latitude, fix.longitude)) }
        var current = open[fix.device] ?? [:]
        let now = Set(inside.filter { $0.phase == "inside" }.map(\.identifier))
        for (id, var interval) in current where !now.contains(id) {
            interval.end = fix.timestamp
            intervals.append(interval)
            current[id] = nil
        }
        for m in inside where m.phase == "inside" && current[m.identifier] == nil {
            current[m.identifier] = Interval(device: fix.device, identifier: m.identifier, region: m.regionID, start: m.since)
        }
        open[fix.device] = current
    }

    public mutating func record(_ n: FiredNotification) { notifications.append(n) }

    /// The whole page.
    public func html(title: String) -> String {
        var all = intervals
        for (_, byID) in open { all.append(contentsOf: byID.values) }
        return ReportPage(title: title, requests: requests, deviceOrder: deviceOrder, tracks: tracks, intervals: all,
                          notifications: notifications, first: first, last: last).render()
    }
}
