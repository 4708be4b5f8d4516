import Geometry
import TriggerEngine

/// Collects what a replay did — tracks, transitions, refused fixes — in compact arrays beside the engine, and writes
/// one self-contained HTML page (`ReportPage`): a map with tracks decimated per zoom level, regions, a country outline
/// background (or the user's tile server), an explain panel per transition, a timeline and tables.
///
/// Nothing here asks the engine anything per fix: the replay hands over each fix with its outcome and each
/// notification as it fires, so the report costs an append per fix, not a query.
public struct ReplayReport {
    /// A tile server the page loads its background from instead of the bundled outlines.
    public struct Tiles: Sendable {
        public var template: String
        public var attribution: String?

        public init(template: String, attribution: String?) {
            self.template = template
            self.attribution = attribution
        }
    }

    /// One device's accepted fixes, quantised to 1e-5 degree (about a metre): the page draws no finer.
    struct Track {
        var latitudes: [Int32] = []
        var longitudes: [Int32] = []
        var first = Timestamp.distantFuture
        var last = Timestamp.distantPast
    }

    struct Transition {
        var device: Int32
        var request: Int32
        var entry: Bool
        var firedAt: Timestamp
        var fix: FixSnapshot?
    }

    struct Refusal {
        var device: Int32
        var timestamp: Timestamp
        var latitude: Int32
        var longitude: Int32
        var reason: FixRejection
    }

    /// Refused fixes listed individually; beyond this they are only counted (a trace of duplicates would otherwise
    /// make the page as large as the trace).
    public let maximumRefusalsListed: Int
    let requests: [NotificationRequest]
    var requestIndex: [String: Int32] = [:]
    var devices: [String] = []
    var deviceIndex: [String: Int32] = [:]
    var tracks: [Track] = []
    var transitions: [Transition] = []
    /// Proximity notifications: which transition, the other device and the distance (metres).
    var pairs: [(transition: Int32, other: Int32, distance: Double)] = []
    var refusals: [Refusal] = []
    var refusalCounts: [FixRejection: Int] = [:]
    var acceptedFixes = 0
    var first = Timestamp.distantFuture
    var last = Timestamp.distantPast
    /// The previous fix's device: traces are mostly runs of one device, so most fixes skip the dictionary.
    private var recent: (name: String, index: Int32)?

    public init(requests: [NotificationRequest], maximumRefusalsListed: Int = 100_000) {
        self.requests = requests
        self.maximumRefusalsListed = maximumRefusalsListed
        for (i, r) in requests.enumerated() where requestIndex[r.identifier] == nil { requestIndex[r.identifier] = Int32(i) }
    }

    mutating func index(ofDevice name: String) -> Int32 {
        if let recent, recent.name == name { return recent.index }
        let i: Int32
        if let known = deviceIndex[name] {
            i = known
        } else {
            i = Int32(devices.count)
            devices.append(name)
            deviceIndex[name] = i
            tracks.append(Track())
        }
        recent = (name, i)
        return i
    }

    static func quantised(_ degrees: Double) -> Int32 { Int32((degrees * 100_000).rounded()) }

    /// A fix the engine accepted.
    public mutating func record(_ fix: LocationFix) {
        let d = Int(index(ofDevice: fix.device))
        acceptedFixes += 1
        first = min(first, fix.timestamp)
        last = max(last, fix.timestamp)
        let lat = Self.quantised(fix.latitude), lon = Self.quantised(fix.longitude)
        tracks[d].first = min(tracks[d].first, fix.timestamp)
        tracks[d].last = max(tracks[d].last, fix.timestamp)
        // A device standing still repeats its position: one point draws it.
        if tracks[d].latitudes.last == lat, tracks[d].longitudes.last == lon { return }
        tracks[d].latitudes.append(lat)
        tracks[d].longitudes.append(lon)
    }

    /// A fix the engine refused, with its reason.
    public mutating func record(_ fix: LocationFix, refused reason: FixRejection) {
        refusalCounts[reason, default: 0] += 1
        guard refusals.count < maximumRefusalsListed else { return }
        let d = index(ofDevice: fix.device)
        let valid = fix.latitude.isFinite && fix.longitude.isFinite && abs(fix.latitude) <= 90 && abs(fix.longitude) <= 180
        refusals.append(Refusal(device: d, timestamp: fix.timestamp,
                                latitude: valid ? Self.quantised(fix.latitude) : .min,
                                longitude: valid ? Self.quantised(fix.longitude) : .min, reason: reason))
    }

    public mutating func record(_ n: FiredNotification) {
        guard let r = requestIndex[n.identifier] else { return }
        let d = index(ofDevice: n.device)
        first = min(first, n.firedAt)
        last = max(last, n.firedAt)
        transitions.append(Transition(device: d, request: r, entry: n.event == .entry, firedAt: n.firedAt, fix: n.fix))
        if let nearby = n.nearby {
            pairs.append((Int32(transitions.count - 1), index(ofDevice: nearby.device), nearby.distance))
        }
    }

    /// The whole page, as UTF-8.
    public func html(title: String, tiles: Tiles? = nil) -> [UInt8] {
        ReportPage(report: self, title: title, tiles: tiles).render()
    }
}
