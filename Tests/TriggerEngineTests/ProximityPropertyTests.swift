import Geometry
import JSON
import TestSupport
import Testing
@testable import TriggerEngine

/// Proximity decisions must not depend on batching or interleaving (docs/semantics.md "Proximity"), and must be
/// what a brute-force evaluation of every pair by distance says.
@Suite struct ProximityPropertyTests {
    /// Devices random-walking through a few hundred metres, some jumping; a roaming group, a listed target set,
    /// every rule option drawn at random, and a fixed circle beside them.
    struct Scenario {
        var requests: [String] = []
        var groups: [String: [String]] = [:]
        var streams: [[LocationFix]] = []

        init(seed: UInt64, devices: Int = 12) {
            var rng = SplitMix(seed: seed)
            let names = (0..<devices).map { "unit-\($0)" }
            groups["crew"] = Array(names.prefix(devices / 2))
            for k in 0..<3 {
                var t = #""region":{"type":"proximity","id":"p\#(k)","radius":\#(rng.pick([30, 60, 120]))"#
                t += k == 0 ? #","targets":{"group":"crew"},"subjects":{"group":"crew"}"# : #","targets":{"devices":["unit-0","unit-7"]}"#
                t += #","maxAge":\#(rng.pick([40, 90, 600]))},"repeats":true"#
                t += #","dwell":\#(rng.pick([0, 0, 15]))"#
                t += #","hysteresis":\#(rng.pick([0, 0, 5]))"#
                t += #","minimumInterval":\#(rng.pick([0, 0, 45]))"#
                t += #","notifyOnExit":\#(rng.chance(0.7))"#
                t += #","initialTrigger":\#(rng.chance(0.3))"#
                requests.append(#"{"identifier":"prox-\#(k)","content":{"title":"{device} {nearby.device}"},"trigger":{\#(t)}}"#)
            }
            requests.append(#"{"identifier":"fixed","trigger":{"region":{"type":"circle","id":"c","center":{"latitude":52.5,"longitude":13.4},"radius":150},"repeats":true}}"#)
            let per = Geodesy.metresPerDegree(latitude: 52.5)
            for name in names {
                var t = TimeScenario.epoch.microseconds + Int64(rng.int(0, 120_000)) * 1_000
                var x = rng.double(-300, 300), y = rng.double(-300, 300)
                var fixes: [LocationFix] = []
                for _ in 0..<rng.int(40, 80) {
                    t += Int64(rng.int(500, 20_000)) * 1_000
                    if rng.chance(0.1) { x = rng.double(-300, 300); y = rng.double(-300, 300) } else {
                        x += rng.double(-25, 25); y += rng.double(-25, 25)
                    }
                    let accuracy: Double? = rng.chance(0.5) ? nil : Double(rng.int(0, 12))
                    fixes.append(LocationFix(device: name, timestamp: Timestamp(microseconds: t), latitude: 52.5 + y / per.latitude,
                                             longitude: 13.4 + x / per.longitude, horizontalAccuracy: accuracy))
                }
                streams.append(fixes)
            }
        }

        var sorted: [LocationFix] {
            streams.flatMap { $0 }.sorted { ($0.timestamp, $0.device) < ($1.timestamp, $1.device) }
        }

        /// Each device's fixes kept in order; with `maxDisorder`, no fix arrives more than that many seconds after
        /// its own time could have (see `TimeScenario.interleaved`).
        func interleaved(seed: UInt64, maxDisorder: Double?) -> [LocationFix] {
            var rng = SplitMix(seed: seed)
            var keyed: [(Double, Int, Int, LocationFix)] = []
            for (d, s) in streams.enumerated() {
                var arrival = -Double.infinity
                for (i, f) in s.enumerated() {
                    let key = maxDisorder.map { max(arrival, f.timestamp.seconds + rng.double(0, $0)) } ?? max(arrival, rng.double(0, 1))
                    arrival = key
                    keyed.append((key, d, i, f))
                }
            }
            keyed.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
            return keyed.map(\.3)
        }

        /// Runs the fixes cut into random batches (`batchSeed`; nil: one by one).
        func run(_ fixes: [LocationFix], lateness: Double?, batchSeed: UInt64? = nil) throws -> (keys: [String], engine: TriggerEngine) {
            var configuration = TriggerEngine.Configuration(clock: .eventTime)
            configuration.allowedLateness = lateness
            let engine = TriggerEngine(configuration: configuration)
            for (name, members) in groups { engine.setGroup(name, devices: members) }
            try engine.add(contentsOf: RequestDecoder().decodeRequests(JSONParser.parse("[" + requests.joined(separator: ",") + "]")))
            var out: [String] = []
            func note(_ n: FiredNotification) {
                out.append(TimeScenario.key(n) + " " + (n.nearby.map { "\($0.device) \($0.timestamp.rfc3339) \(Int(($0.distance * 100).rounded()))" } ?? "-"))
            }
            if let batchSeed {
                var rng = SplitMix(seed: batchSeed)
                var k = 0
                while k < fixes.count {
                    let n = min(fixes.count - k, rng.int(1, 40))
                    Array(fixes[k..<(k + n)]).withUnsafeBufferPointer { engine.process(batch: $0, emit: note, outcome: { _, _ in }) }
                    k += n
                }
            } else {
                for f in fixes { engine.process(f, emit: note) }
            }
            engine.finish(emit: note)
            return (out.sorted(), engine)
        }
    }

    @Test(arguments: 0..<20)
    func anyInterleavingAndBatchingGivesTheSortedRunsNotifications(seed: Int) throws {
        let scenario = Scenario(seed: UInt64(seed))
        let reference = try scenario.run(scenario.sorted, lateness: nil)
        #expect(reference.keys.filter { $0.hasPrefix("prox-") }.count > 10, "seed \(seed): the property must have something to say")
        #expect(reference.engine.statistics.rejectedTotal == 0)
        let shuffled = try scenario.run(scenario.interleaved(seed: UInt64(seed) &+ 500, maxDisorder: nil), lateness: nil, batchSeed: UInt64(seed))
        #expect(TimeScenario.difference(shuffled.keys, reference.keys) == nil, "seed \(seed)")
        let grouped = try scenario.run(scenario.streams.flatMap { $0 }, lateness: nil)
        #expect(TimeScenario.difference(grouped.keys, reference.keys) == nil, "seed \(seed)")
    }

    @Test(arguments: 0..<20)
    func disorderWithinTheAllowedLatenessGivesTheSortedRunsNotifications(seed: Int) throws {
        // Decided during the run as the watermark passes, not only at the end.
        let scenario = Scenario(seed: UInt64(seed) &+ 91)
        let lateness = 60.0
        let reference = try scenario.run(scenario.sorted, lateness: nil)
        let live = try scenario.run(scenario.interleaved(seed: UInt64(seed) &+ 7, maxDisorder: lateness / 2), lateness: lateness,
                                    batchSeed: UInt64(seed) &+ 3)
        #expect(TimeScenario.difference(live.keys, reference.keys) == nil, "seed \(seed)")
        #expect(live.engine.statistics.proximityLate == 0)
        #expect(live.engine.pendingProximityInputs == 0)
    }

    @Test(arguments: 0..<8)
    func aCheckpointMidwayRestoresTheSameDecisions(seed: Int) throws {
        // Stopped at a random point with fixes still queued for the watermark, checkpointed, restored into a new
        // engine (requests first, as the host does), and continued: the same notifications as one run.
        let scenario = Scenario(seed: UInt64(seed) &+ 300)
        let lateness = 60.0
        let fixes = scenario.interleaved(seed: UInt64(seed), maxDisorder: lateness / 2)
        let reference = try scenario.run(fixes, lateness: lateness)
        var rng = SplitMix(seed: UInt64(seed))
        let cut = rng.int(fixes.count / 4, 3 * fixes.count / 4)
        var configuration = TriggerEngine.Configuration(clock: .eventTime)
        configuration.allowedLateness = lateness
        let first = TriggerEngine(configuration: configuration)
        for (name, members) in scenario.groups { first.setGroup(name, devices: members) }
        try first.add(contentsOf: RequestDecoder().decodeRequests(JSONParser.parse("[" + scenario.requests.joined(separator: ",") + "]")))
        var out: [String] = []
        func note(_ n: FiredNotification) {
            out.append(TimeScenario.key(n) + " " + (n.nearby.map { "\($0.device) \($0.timestamp.rfc3339) \(Int(($0.distance * 100).rounded()))" } ?? "-"))
        }
        for f in fixes[..<cut] { first.process(f, emit: note) }
        #expect(first.pendingProximityInputs > 0, "seed \(seed): the checkpoint must hold queued fixes")
        var w = ByteWriter(capacity: 1 << 16)
        first.encodeCheckpoint(into: &w)
        let second = TriggerEngine(configuration: configuration)
        for (request, state) in first.pendingRequestStates { try second.restore(request, state: state) }
        var r = ByteReader(w.bytes)
        try second.restoreCheckpoint(from: &r)
        #expect(second.groups == first.groups)
        for f in fixes[cut...] { second.process(f, emit: note) }
        second.finish(emit: note)
        #expect(TimeScenario.difference(out.sorted(), reference.keys) == nil, "seed \(seed)")
    }

    /// Every pair by distance, with the rules written out plainly: radius only (no hysteresis, accuracy, dwell or
    /// interval), `maxAge` staleness, the initial state silent.
    @Test(arguments: 0..<10)
    func bruteForceOracleOverRandomWalks(seed: Int) throws {
        var rng = SplitMix(seed: UInt64(seed) &+ 4242)
        let radius = 80.0, maxAge = 60.0
        let devices = (0..<16).map { "d\($0)" }
        let targets = Set(devices.prefix(5))
        let request = #"{"identifier":"o","trigger":{"region":{"type":"proximity","id":"o","radius":\#(radius),"maxAge":\#(maxAge),"targets":{"group":"t"}},"repeats":true}}"#
        let per = Geodesy.metresPerDegree(latitude: -33.9)
        var fixes: [LocationFix] = []
        for name in devices {
            var t = TimeScenario.epoch.microseconds + Int64(rng.int(0, 30_000)) * 1_000
            var x = rng.double(-250, 250), y = rng.double(-250, 250)
            for _ in 0..<rng.int(60, 120) {
                t += Int64(rng.int(1_000, 40_000)) * 1_000
                x += rng.double(-30, 30); y += rng.double(-30, 30)
                fixes.append(LocationFix(device: name, timestamp: Timestamp(microseconds: t), latitude: -33.9 + y / per.latitude,
                                         longitude: 151.2 + x / per.longitude))
            }
        }
        fixes.sort { ($0.timestamp, $0.device) < ($1.timestamp, $1.device) }

        // The oracle: positions, then every (subject, target) pair with both fresh, in time order.
        var position: [String: (Timestamp, Coordinate)] = [:]
        var phase: [String: Bool] = [:]  // "s>t": inside?
        var expected: [String] = []
        for f in fixes {
            let first = position[f.device] == nil
            position[f.device] = (f.timestamp, Coordinate(latitude: f.latitude, longitude: f.longitude))
            for other in devices where other != f.device {
                for (s, t) in [(f.device, other), (other, f.device)] where targets.contains(t) {
                    guard let ps = position[s], let pt = position[t] else { continue }
                    let otherTime = s == f.device ? pt.0 : ps.0
                    guard (f.timestamp.microseconds - otherTime.microseconds) <= Int64(maxAge * 1_000_000) else { continue }
                    let inside = Geodesy.distance(ps.1, pt.1) <= radius
                    let key = "\(s)>\(t)"
                    if let was = phase[key] {
                        if was != inside { expected.append("\(s) \(inside ? "entry" : "exit") \(t) \(f.timestamp.rfc3339)") }
                    } else if !first, inside {
                        // Both had been seen: a pair never found inside was outside.
                        expected.append("\(s) entry \(t) \(f.timestamp.rfc3339)")
                    }
                    phase[key] = inside
                }
            }
        }
        var configuration = TriggerEngine.Configuration(clock: .eventTime)
        configuration.allowedLateness = nil
        let engine = TriggerEngine(configuration: configuration)
        engine.setGroup("t", devices: targets)
        try engine.add(RequestDecoder().decodeRequest(JSONParser.parse(request)))
        var got: [String] = []
        let emit: (FiredNotification) -> Void = { got.append("\($0.device) \($0.event.rawValue) \($0.nearby!.device) \($0.firedAt.rfc3339)") }
        for f in fixes { engine.process(f, emit: emit) }
        engine.finish(emit: emit)
        #expect(expected.count > 20, "seed \(seed)")
        #expect(got.sorted() == expected.sorted(), "seed \(seed): \(TimeScenario.difference(got.sorted(), expected.sorted()) ?? "")")
    }
}
