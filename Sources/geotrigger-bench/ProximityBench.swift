import ArgumentParser
import Foundation
import Geometry
import JSON
import TriggerEngine

/// Issue 50's figure: a roaming group among many moving devices against the same fixes with fixed circles, in one
/// run, and the workload exported for the shapely peer (`Tools/bench/proximity_peer.py`).
struct ProximityBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proximity",
        abstract: "Measures proximity requests (a roaming group) against fixed circles on the same fixes.")

    @Option(help: "Moving devices; every one reports once per step.") var devices = 100_000
    @Option(help: "Devices in the roaming group (the targets).") var group = 10_000
    @Option(help: "Proximity radius, metres (and the fixed circles' radius).") var radius = 200.0
    @Option(help: "Steps (each: every device moves and reports).") var steps = 10
    @Option(help: "Side of the square the devices move in, km.") var side = 20.0
    @Option(help: "Seconds of allowed lateness: proximity is decided during the run as the watermark passes.") var lateness = 5.0
    @Option(help: "Directory to export the positions to for the peer.") var export: String?
    @Option(help: "Random seed.") var seed: UInt64 = 50
    @Option(help: "Cases to run: fixed-circles, proximity.") var cases: [String] = ["fixed-circles", "proximity"]

    func run() throws {
        var rng = SplitMix64(seed: seed)
        let lat0 = 48.85, lon0 = 2.35
        let per = Geodesy.metresPerDegree(latitude: lat0)
        let half = side * 500
        var x = (0..<devices).map { _ in Double.random(in: -half...half, using: &rng) }
        var y = (0..<devices).map { _ in Double.random(in: -half...half, using: &rng) }
        let names = (0..<devices).map { "dev-\($0)" }
        let members = Array(names.prefix(group))
        // Fixed circles where the group starts: the same density of places to be near.
        let circles = (0..<group).map { k in
            NotificationRequest(identifier: "c\(k)", content: NotificationContent(), trigger: LocationTrigger(
                region: Region(id: "c\(k)", shape: .circle(center: Coordinate(latitude: lat0 + y[k] / per.latitude, longitude: lon0 + x[k] / per.longitude), radius: radius)),
                repeats: true))
        }
        let roam = NotificationRequest(identifier: "roam", content: NotificationContent(), trigger: LocationTrigger(
            region: Region(id: "roam", shape: .proximity(ProximityRegion(radius: radius, targets: .group("roam")))), repeats: true))
        // Every device moves up to 30 m per 10 s step and reports at its own offset within the step.
        var fixes: [LocationFix] = []
        fixes.reserveCapacity(devices * steps)
        let base = Timestamp(year: 2026, month: 11, day: 20)
        var positions: [Double] = []
        for step in 0..<steps {
            var order: [(Int64, Int)] = (0..<devices).map { (Int64.random(in: 0..<10_000_000, using: &rng), $0) }
            order.sort { $0 < $1 }
            for (offset, d) in order {
                if step > 0 {
                    x[d] = min(half, max(-half, x[d] + Double.random(in: -30...30, using: &rng)))
                    y[d] = min(half, max(-half, y[d] + Double.random(in: -30...30, using: &rng)))
                }
                fixes.append(LocationFix(device: names[d], timestamp: base + .init(microseconds: Int64(step) * 10_000_000 + offset),
                                         latitude: lat0 + y[d] / per.latitude, longitude: lon0 + x[d] / per.longitude))
            }
            if export != nil { for d in 0..<devices { positions.append(x[d]); positions.append(y[d]) } }
        }
        if let export {
            try FileManager.default.createDirectory(atPath: export, withIntermediateDirectories: true)
            try positions.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: "\(export)/positions.f64"))
            let meta = #"{"devices":\#(devices),"group":\#(group),"steps":\#(steps),"radius":\#(radius)}"#
            try Data(meta.utf8).write(to: URL(fileURLWithPath: "\(export)/meta.json"))
        }
        print("case\tdevices\tgroup\tfixes\tfixes_per_s\tns_per_fix\tnotifications\tlate")
        for (name, requests) in [("fixed-circles", circles), ("proximity", [roam])] where cases.contains(name) {
            var configuration = TriggerEngine.Configuration(clock: .eventTime)
            configuration.allowedLateness = lateness
            let engine = TriggerEngine(configuration: configuration)
            engine.setGroup("roam", devices: members)
            try engine.add(contentsOf: requests)
            var notifications = 0
            var json = JSONWriter(capacity: 1 << 16)
            let emit: (FiredNotification) -> Void = { n in
                notifications += 1
                json.bytes.removeAll(keepingCapacity: true)
                n.writeJSON(to: &json)
            }
            let clock = ContinuousClock()
            let start = clock.now
            var k = 0
            while k < fixes.count {
                let end = min(fixes.count, k + 1_000)
                fixes[k..<end].withUnsafeBufferPointer { engine.process(batch: $0, emit: emit, outcome: { _, _ in }) }
                k = end
            }
            engine.finish(emit: emit)
            let seconds = (clock.now - start).seconds
            print([name, "\(devices)", "\(group)", "\(fixes.count)", String(format: "%.0f", Double(fixes.count) / seconds),
                   String(format: "%.0f", seconds * 1e9 / Double(fixes.count)), "\(notifications)", "\(engine.statistics.proximityLate)"]
                .joined(separator: "\t"))
        }
    }
}

