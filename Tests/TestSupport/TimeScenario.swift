import JSON
import TriggerEngine

/// Random devices and regions for the per-device time property (docs/semantics.md "Time"): circles with dwell,
/// hysteresis and minimumInterval, beacon regions with exit timeouts and dwell; devices that move in and out of
/// them and observers that hear beacons come and go. Each device's inputs are in its own time order; how they are
/// interleaved across devices and cut into batches is what the property varies.
public struct TimeScenario: Sendable {
    /// One input of one device, in that device's order.
    public enum Input: Sendable, Hashable {
        case fix(LocationFix)
        case sighting(BeaconSighting)

        public var device: String {
            switch self {
            case .fix(let f): f.device
            case .sighting(let s): s.device
            }
        }

        public var timestamp: Timestamp {
            switch self {
            case .fix(let f): f.timestamp
            case .sighting(let s): s.timestamp
            }
        }

        /// The NDJSON line `convert` and the HTTP API read.
        public var jsonLine: String {
            var w = JSONWriter(capacity: 256)
            switch self {
            case .fix(let f): f.writeJSON(to: &w)
            case .sighting(let s): s.writeJSON(to: &w)
            }
            return String(decoding: w.bytes, as: UTF8.self)
        }
    }

    public let seed: UInt64
    /// The requests, as the JSON array `replay` and `POST /v1/requests` read.
    public var requestsJSON: String
    /// Each device's inputs in its own time order.
    public var streams: [[Input]]

    public static let epoch = Timestamp(microseconds: 1_795_161_600_000_000)  // 2026-11-20T08:00:00Z

    /// - Parameters:
    ///   - beacons: include observers and beacon regions (the `replay` command reads fixes only).
    public init(seed: UInt64, devices: Int = 10, observers: Int = 3, beacons: Bool = true) {
        self.seed = seed
        var rng = SplitMix(seed: seed)
        let lat0 = 52.5, lon0 = 13.4
        var requests: [String] = []
        var centres: [(Double, Double, Double)] = []
        for k in 0..<6 {
            let lat = lat0 + rng.double(0, 0.01), lon = lon0 + rng.double(0, 0.015), radius = rng.double(80, 400)
            centres.append((lat, lon, radius))
            var trigger = #""region":{"type":"circle","id":"zone-\#(k)","center":{"latitude":\#(lat),"longitude":\#(lon)},"radius":\#(radius)},"repeats":true"#
            trigger += #","dwell":\#(rng.pick([0, 0, 20, 60]))"#
            trigger += #","hysteresis":\#(rng.pick([0, 0, 15]))"#
            trigger += #","minimumInterval":\#(rng.pick([0, 0, 120]))"#
            trigger += #","notifyOnExit":\#(rng.chance(0.7))"#
            trigger += #","initialTrigger":\#(rng.chance(0.3))"#
            requests.append(#"{"identifier":"geofence-\#(k)","content":{"title":"{event} {region.id} {device}"},"trigger":{\#(trigger)}}"#)
        }
        let uuids = ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "B9407F30-F5F8-466E-AFF9-25556B57FE6D"]
        if beacons {
            for (k, uuid) in uuids.enumerated() {
                requests.append(#"""
                    {"identifier":"beacon-\#(k)","content":{"title":"{event} {region.id}"},"trigger":{"region":{"type":"beacon","id":"door-\#(k)","uuid":"\#(uuid)"},"repeats":true,"exitTimeout":\#(rng.pick([10, 30])),"dwell":\#(rng.pick([0, 0, 15])),"minimumInterval":\#(rng.pick([0, 0, 60]))}}
                    """#)
            }
        }
        requestsJSON = "[" + requests.joined(separator: ",") + "]"

        var streams: [[Input]] = []
        for d in 0..<devices {
            let name = "vehicle-\(d)"
            var t = Self.epoch.microseconds + Int64(rng.int(0, 300)) * 1_000_000
            var (lat, lon, _) = rng.pick(centres)
            var inputs: [Input] = []
            for _ in 0..<rng.int(50, 110) {
                t += Int64(rng.int(1_000, 40_000)) * 1_000  // whole milliseconds: exact through RFC 3339 text
                if rng.chance(0.15) {
                    // Jump to (or near) another zone: entries and exits.
                    let c = rng.pick(centres)
                    lat = c.0 + rng.double(-1.5, 1.5) * c.2 / 111_000
                    lon = c.1 + rng.double(-1.5, 1.5) * c.2 / 68_000
                } else {
                    lat += rng.double(-0.0006, 0.0006)
                    lon += rng.double(-0.0009, 0.0009)
                }
                let accuracy: Double? = rng.chance(0.5) ? nil : Double(rng.int(0, 30))
                inputs.append(.fix(LocationFix(device: name, timestamp: Timestamp(microseconds: t), latitude: lat,
                                               longitude: lon, horizontalAccuracy: accuracy)))
            }
            streams.append(inputs)
        }
        if beacons {
            for o in 0..<observers {
                let name = "gateway-\(o)"
                var t = Self.epoch.microseconds + Int64(rng.int(0, 300)) * 1_000_000
                var inputs: [Input] = []
                var present = [false, false]
                for _ in 0..<rng.int(40, 90) {
                    t += Int64(rng.int(1_000, 25_000)) * 1_000
                    for k in 0..<2 where rng.chance(0.2) { present[k].toggle() }
                    let heard = (0..<2).filter { present[$0] }
                    let identity: BeaconIdentity
                    if heard.isEmpty || rng.chance(0.2) {
                        // A beacon no region names: the observer is listening, and says so.
                        identity = .iBeacon(uuid: UUID128(string: "11111111-2222-3333-4444-555555555555")!, major: 1, minor: 1)
                    } else {
                        identity = .iBeacon(uuid: UUID128(string: uuids[rng.pick(heard)])!, major: 7, minor: 9)
                    }
                    inputs.append(.sighting(BeaconSighting(device: name, timestamp: Timestamp(microseconds: t),
                                                           identity: identity, rssi: -60, txPower: -59)))
                }
                streams.append(inputs)
            }
        }
        self.streams = streams
    }

    /// Every input sorted by time (stable: ties keep device order): the reference run.
    public var sorted: [Input] {
        var all: [(Input, Int, Int)] = []
        for (d, s) in streams.enumerated() { for (i, x) in s.enumerated() { all.append((x, d, i)) } }
        all.sort { ($0.0.timestamp, $0.1, $0.2) < ($1.0.timestamp, $1.1, $1.2) }
        return all.map(\.0)
    }

    /// The devices' inputs interleaved at random, each device's kept in order. With `maxDisorder` (seconds), an
    /// input arrives at most that long after the newest timestamp that arrived before it could have been; nil: any
    /// interleaving at all (a file grouped by device is one of them).
    public func interleaved(seed: UInt64, maxDisorder: Double?) -> [Input] {
        var rng = SplitMix(seed: seed)
        var keyed: [(key: Double, device: Int, index: Int, input: Input)] = []
        for (d, s) in streams.enumerated() {
            var arrival = -Double.infinity
            for (i, x) in s.enumerated() {
                let key: Double
                if let maxDisorder {
                    // a_i = max(a_{i-1}, t_i + U[0, bound)): keeps the device's order, and a_i - t_i < bound.
                    key = max(arrival, x.timestamp.seconds + rng.double(0, maxDisorder))
                } else {
                    key = max(arrival, rng.double(0, 1))
                }
                arrival = key
                keyed.append((key, d, i, x))
            }
        }
        keyed.sort { ($0.key, $0.device, $0.index) < ($1.key, $1.device, $1.index) }
        return keyed.map(\.input)
    }

    /// `inputs` cut into batches of 1 to `largest`.
    public static func batches(_ inputs: [Input], seed: UInt64, largest: Int = 40) -> [[Input]] {
        var rng = SplitMix(seed: seed)
        var out: [[Input]] = []
        var k = 0
        while k < inputs.count {
            let n = min(inputs.count - k, rng.int(1, largest))
            out.append(Array(inputs[k..<(k + n)]))
            k += n
        }
        return out
    }

    /// The same key read back from a notification's NDJSON line (a sink file, `replay`'s output); nil if the line
    /// is not a notification.
    public static func key(jsonLine line: String) -> String? {
        guard let v = try? JSONParser.parse(line), let id = v["identifier"]?.stringValue, let device = v["device"]?.stringValue,
            let event = v["trigger"]?["event"]?.stringValue, let deliveryId = v["deliveryId"]?.stringValue,
            let firedAt = v["firedAt"]?.stringValue.flatMap(Timestamp.init(rfc3339:))
        else { return nil }
        let evidence = (v["fix"]?["timestamp"] ?? v["beacon"]?["timestamp"])?.stringValue.flatMap(Timestamp.init(rfc3339:))
        return "\(id) \(device) \(event) \(evidence?.rfc3339 ?? "-") \(deliveryId) \(firedAt.rfc3339)"
    }

    /// Runs inputs through one engine in event time, as `replay` does, ending with the end of input when `finish`.
    public func run(_ inputs: [Input], lateness: Double?, finish: Bool = true) throws -> [String] {
        var configuration = TriggerEngine.Configuration(clock: .eventTime)
        configuration.allowedLateness = lateness
        let engine = TriggerEngine(configuration: configuration)
        try engine.add(contentsOf: RequestDecoder().decodeRequests(JSONParser.parse(requestsJSON)))
        var out: [FiredNotification] = []
        for input in inputs {
            switch input {
            case .fix(let f): engine.process(f) { out.append($0) }
            case .sighting(let s): engine.process(s) { out.append($0) }
            }
        }
        if finish { engine.finish { out.append($0) } }
        return out.map(Self.key).sorted()
    }

    /// Nil when two runs agree; else the counts and the first few notifications that differ.
    public static func difference(_ a: [String], _ b: [String]) -> String? {
        guard a != b else { return nil }
        let onlyA = Set(a).subtracting(b).sorted().prefix(3), onlyB = Set(b).subtracting(a).sorted().prefix(3)
        return "\(a.count) against \(b.count) notifications; only in the run: \(Array(onlyA)); only in the reference: \(Array(onlyB))"
    }

    /// What the property compares: identifier, device, event, fix (or sighting) time, deliveryId and firedAt of
    /// each notification, sorted (deliveryIds are unique, so this is the multiset).
    public static func key(_ n: FiredNotification) -> String {
        let evidence = n.fix?.timestamp ?? n.beacon?.timestamp
        return "\(n.identifier) \(n.device) \(n.event.rawValue) \(evidence?.rfc3339 ?? "-") \(n.deliveryId) \(n.firedAt.rfc3339)"
    }
}
