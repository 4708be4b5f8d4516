import JSON
import Foundation
import TestSupport
import Testing
@testable import TriggerEngine

/// Time is per device (SPEC §3, docs/semantics.md "Time"): the notifications must not depend on how devices'
/// inputs interleave or how they are batched, only on each device's own timeline.
@Suite struct PerDeviceTimeTests {
    /// Runs inputs through one engine, as a replay does: event time, then the end of input.
    static func run(_ scenario: TimeScenario, _ inputs: [TimeScenario.Input], lateness: Double?) throws -> (keys: [String], engine: TriggerEngine) {
        var configuration = TriggerEngine.Configuration(clock: .eventTime)
        configuration.allowedLateness = lateness
        let engine = TriggerEngine(configuration: configuration)
        try engine.add(contentsOf: RequestDecoder().decodeRequests(JSONParser.parse(scenario.requestsJSON)))
        var out: [FiredNotification] = []
        for input in inputs {
            switch input {
            case .fix(let f): engine.process(f) { out.append($0) }
            case .sighting(let s): engine.process(s) { out.append($0) }
            }
        }
        engine.finish { out.append($0) }
        return (out.map(TimeScenario.key).sorted(), engine)
    }

    @Test(arguments: 0..<25)
    func anyInterleavingGivesTheSortedRunsNotifications(seed: Int) throws {
        let scenario = TimeScenario(seed: UInt64(seed))
        let reference = try Self.run(scenario, scenario.sorted, lateness: nil)
        // The property must have something to say: dwells complete, beacons come and go.
        #expect(reference.keys.count > 20, "seed \(seed)")
        #expect(reference.engine.statistics.rejected.isEmpty, "seed \(seed)")
        let shuffled = try Self.run(scenario, scenario.interleaved(seed: UInt64(seed) &+ 1000, maxDisorder: nil), lateness: nil)
        #expect(TimeScenario.difference(shuffled.keys, reference.keys) == nil, "seed \(seed)")
        // One device after another, as in a file grouped by device.
        let grouped = try Self.run(scenario, scenario.streams.flatMap { $0 }, lateness: nil)
        #expect(TimeScenario.difference(grouped.keys, reference.keys) == nil, "seed \(seed)")
    }

    @Test(arguments: 0..<25)
    func disorderWithinTheAllowedLatenessGivesTheSortedRunsNotifications(seed: Int) throws {
        // With a finite allowed lateness the watermark fires silent devices' deadlines during the run; an input
        // arriving at most half the lateness behind the watermark still finds its device where the sorted run did.
        let scenario = TimeScenario(seed: UInt64(seed) &+ 77)
        let lateness = 120.0
        let reference = try Self.run(scenario, scenario.sorted, lateness: lateness)
        let late = try Self.run(scenario, scenario.interleaved(seed: UInt64(seed) &+ 5, maxDisorder: lateness / 2), lateness: lateness)
        #expect(TimeScenario.difference(late.keys, reference.keys) == nil, "seed \(seed)")
        #expect(late.engine.statistics.rejected.isEmpty, "seed \(seed): \(late.engine.statistics.rejected)")
        // And the same as with no lateness at all: when the clock fires a deadline changes nothing it decides.
        let unbounded = try Self.run(scenario, scenario.sorted, lateness: nil)
        #expect(TimeScenario.difference(unbounded.keys, reference.keys) == nil, "seed \(seed)")
    }

    @Test func busRouteGroupedByVehicleGivesTheSortedResult() throws {
        // The reproduction from the issue, on a small scale: dwell at a terminus, fixes grouped by vehicle.
        let h = Harness()
        try h.circle("terminus", lat: 0, lon: 0, radius: 100, #""dwell":30"#)
        var sorted: [LocationFix] = []
        for v in 0..<5 {
            for k in 0..<10 {
                let inside = k >= 3 && k < 8
                sorted.append(LocationFix(device: "bus-\(v)", timestamp: Harness.time(Double(v * 7 + k * 10)),
                                          latitude: inside ? 0 : 0.01, longitude: 0))
            }
        }
        let grouped = sorted
        sorted.sort { $0.timestamp < $1.timestamp }
        func run(_ fixes: [LocationFix]) -> [String] {
            let e = TriggerEngine()
            try? e.add(contentsOf: h.engine.pendingRequests)
            var out: [FiredNotification] = []
            for f in fixes { e.process(f) { out.append($0) } }
            e.finish { out.append($0) }
            return out.map(TimeScenario.key).sorted()
        }
        let a = run(sorted), b = run(grouped)
        #expect(a.count == 10)  // five dwell entries, five exits
        #expect(a == b)
    }
}
