import Hummingbird
import JSON
import EngineLog
import TriggerEngine

/// What one event stream asks for (`GET /v1/stream?…`), checked: every parameter known, every value usable, and a
/// device credential held to its own devices.
struct StreamFilter: Sendable {
    /// Nil: every device (the credential permitting).
    var devices: Set<String>?
    /// Request identifiers and region ids of the notifications wanted; nil: any.
    var requests: Set<String>?
    var regions: Set<String>?
    /// Device positions (the fixes as journaled) as well as notifications.
    var positions = false
    var heartbeat: Duration = .seconds(Self.defaultHeartbeat)
    /// Events this reader's buffer holds before it lags.
    var buffer = Self.defaultBuffer

    static let defaultHeartbeat = 15
    static let maximumHeartbeat = 300
    static let defaultBuffer = 4096
    static let maximumBuffer = 65536
    static let parameters: Set<String> = ["device", "request", "region", "positions", "heartbeat", "buffer"]

    init(_ query: Parameters, credential: Credential?) throws(Problem) {
        for (name, _) in query where !Self.parameters.contains(String(name)) {
            throw Self.bad("unknown parameter '\(name)'; this route takes \(Self.parameters.sorted().joined(separator: ", "))")
        }
        func set(_ name: String) throws(Problem) -> Set<String>? {
            let values = query.getAll(name)
            guard !values.isEmpty else { return nil }
            if values.contains("") { throw Self.bad("\(name): an empty value (repeat the parameter for several: \(name)=a&\(name)=b)") }
            return Set(values)
        }
        func single(_ name: String) throws(Problem) -> String? {
            let values = query.getAll(name)
            guard values.count <= 1 else { throw Self.bad("\(name): given \(values.count) times; give it once") }
            return values.first
        }
        func integer(_ name: String, in range: ClosedRange<Int>) throws(Problem) -> Int? {
            guard let text = try single(name) else { return nil }
            guard let n = Int(text), range.contains(n) else {
                throw Self.bad("\(name): '\(text)' is not an integer in \(range.lowerBound)…\(range.upperBound)")
            }
            return n
        }
        devices = try set("device")
        requests = try set("request")
        regions = try set("region")
        if let p = try single("positions") {
            switch p {
            case "true": positions = true
            case "false": positions = false
            default: throw Self.bad("positions: '\(p)' is not true or false")
            }
        }
        if let s = try integer("heartbeat", in: 1...Self.maximumHeartbeat) { heartbeat = .seconds(s) }
        if let b = try integer("buffer", in: 1...Self.maximumBuffer) { buffer = b }
        // A device credential streams only its own devices: all of them by default, the ones it names otherwise.
        if let credential, credential.scope == .device {
            if let devices { try credential.requireOwn(devices) } else { devices = credential.devices }
        }
    }

    static func bad(_ detail: String) -> Problem { Problem(.badRequest, title: "Bad stream parameter", detail: detail) }

    func wants(_ n: RecordedNotification) -> Bool {
        if let devices, !devices.contains(n.device) { return false }
        if let requests, !requests.contains(n.identifier) { return false }
        if let regions {
            // The region id is in the notification's JSON only; read for readers that filter on it.
            guard let json = try? JSONParser.parse(n.json), let id = json["trigger"]?["region"]?["id"]?.stringValue,
                  regions.contains(id) else { return false }
        }
        return true
    }

    /// Positions follow the device filter only: a fix belongs to no request or region.
    func wants(_ fix: LocationFix) -> Bool {
        devices.map { $0.contains(fix.device) } ?? true
    }
}
