import JSON
import Foundation
import TestSupport
import Testing
@testable import TriggerEngine

/// `TriggerEngine.process(batch:)` prefetches the next fixes' device records and index entries while it evaluates:
/// the notifications (every byte, in order) and each fix's outcome must be exactly those of `process` one fix at a
/// time, however the fixes are cut into batches, with devices created mid-batch (the device table rehashes),
/// rejected fixes (late, duplicate, invalid), dwell deadlines settled on the way, and (odd seeds) idle devices
/// expired mid-batch, so a record guessed for a fix a few places ahead may have been freed or reused by then.
@Suite struct BatchProcessingTests {
    static func engine(_ scenario: TimeScenario, idleExpiry: Double?) throws -> TriggerEngine {
        let engine = TriggerEngine(configuration: TriggerEngine.Configuration(clock: .eventTime, idleDeviceExpiry: idleExpiry))
        try engine.add(contentsOf: RequestDecoder().decodeRequests(JSONParser.parse(scenario.requestsJSON)))
        return engine
    }

    // Six seeds of a few thousand fixes: the test is synchronous and holds a thread of the pool the whole suite shares.
    @Test(arguments: 0..<6)
    func batchesGiveTheOneByOneNotificationsAndOutcomes(seed: Int) throws {
        // Enough devices that the table (1,024 words at first) grows while a batch is under way.
        let scenario = TimeScenario(seed: UInt64(seed) &+ 500, devices: 20 + 60 * (seed % 3), beacons: false)
        var fixes: [LocationFix] = scenario.interleaved(seed: UInt64(seed) &+ 7, maxDisorder: nil).compactMap {
            if case .fix(let f) = $0 { return f }
            return nil
        }
        // Renamed copies of the devices, so thousands of names are met for the first time mid-batch.
        var rng = SplitMix(seed: UInt64(seed))
        fixes = fixes.flatMap { f in
            (0..<(seed % 3 == 2 ? 8 : 2)).map { copy in
                var g = f
                g.device = "\(f.device)-copy\(copy)"
                return g
            }
        }
        // Rejections: a repeat of an earlier fix (duplicate or late), and a fix with no valid position.
        for _ in 0..<(fixes.count / 50) {
            let k = Int(rng.next() % UInt64(fixes.count))
            fixes.insert(fixes[k], at: min(fixes.count, k + 1 + Int(rng.next() % 200)))
        }
        var invalid = fixes[fixes.count / 2]
        invalid.latitude = .nan
        fixes.insert(invalid, at: fixes.count / 3)

        // A short expiry for odd seeds: devices silent for a while are freed and their records reused.
        let idleExpiry: Double? = seed % 2 == 1 ? 60 : nil
        let single = try Self.engine(scenario, idleExpiry: idleExpiry)
        var expected: [String] = []
        var expectedOutcomes: [TriggerEngine.Outcome] = []
        for f in fixes { expectedOutcomes.append(single.process(f) { expected.append($0.jsonLine) }) }
        single.finish { expected.append($0.jsonLine) }
        #expect(expected.count > 50, "seed \(seed): the scenario fires too little to say anything")
        #expect(expectedOutcomes.contains { $0 != .evaluated }, "seed \(seed): no fix was rejected")

        if idleExpiry != nil {
            #expect(single.statistics.devicesExpired > 0, "seed \(seed): no device expired, so no freed record was met")
        }

        let batched = try Self.engine(scenario, idleExpiry: idleExpiry)
        var got: [String] = []
        var outcomes = [TriggerEngine.Outcome?](repeating: nil, count: fixes.count)
        var start = 0
        while start < fixes.count {
            let end = min(fixes.count, start + 1 + Int(rng.next() % 700))
            fixes[start..<end].withUnsafeBufferPointer { batch in
                batched.process(batch: batch, emit: { got.append($0.jsonLine) }, outcome: { k, o in outcomes[start + k] = o })
            }
            start = end
        }
        batched.finish { got.append($0.jsonLine) }
        let firstOutcome = fixes.indices.first { outcomes[$0] != expectedOutcomes[$0] }
        #expect(firstOutcome == nil, "seed \(seed): fix \(firstOutcome ?? -1)'s outcome differs")
        let first = (0..<max(got.count, expected.count)).first { $0 >= got.count || $0 >= expected.count || got[$0] != expected[$0] }
        #expect(first == nil, "seed \(seed): notification \(first ?? -1) of \(expected.count) differs")
    }

    /// A fix can end a `repeats: false` request, and enough of those rebuild the index mid-batch, here on a coarser
    /// level: 270 small circles (140 m filed, level 18) and 20 larger ones (320 m, still level 18 beside them);
    /// once 257 small ones are gone the larger ones are the median and everything moves to level 16. The batch
    /// works out the cell keys of the fixes two ahead: a key from before the rebuild must not be used after it
    /// (the fixes right after it would find no cell, and their entries would be missed).
    @Test func anIndexRebuiltMidBatchOnAnotherLevelGivesTheOneByOneNotifications() throws {
        var requests: [String] = []
        for k in 0..<20 {
            requests.append(#"{"identifier":"large-\#(k)","trigger":{"region":{"type":"circle","id":"L\#(k)","center":{"latitude":\#(1 + Double(k) * 0.01),"longitude":0},"radius":110},"repeats":true}}"#)
        }
        func small(_ i: Int) -> (latitude: Double, longitude: Double) { (Double(i / 18) * 0.002, Double(i % 18) * 0.002) }
        for i in 0..<270 {
            let c = small(i)
            requests.append(#"{"identifier":"small-\#(i)","trigger":{"region":{"type":"circle","id":"S\#(i)","center":{"latitude":\#(c.latitude),"longitude":\#(c.longitude)},"radius":20},"repeats":false}}"#)
        }
        let json = "[" + requests.joined(separator: ",") + "]"
        func engine() throws -> TriggerEngine {
            let e = TriggerEngine(configuration: TriggerEngine.Configuration(clock: .eventTime))
            try e.add(contentsOf: RequestDecoder().decodeRequests(JSONParser.parse(json)))
            return e
        }
        // Round 0: each device beside its small circle; round 1: into it (the small request fires and ends);
        // round 2: beside it again.
        let start = Timestamp(microseconds: 1_800_000_000_000_000)
        var fixes: [LocationFix] = []
        for round in 0..<3 {
            for i in 0..<270 {
                let c = small(i)
                let offset = round == 1 ? 0 : 0.0009
                fixes.append(LocationFix(device: "device-\(i)", timestamp: Timestamp(microseconds: start.microseconds + Int64(round) * 10_000_000),
                                         latitude: c.latitude + offset, longitude: c.longitude, horizontalAccuracy: 5))
            }
        }
        let single = try engine()
        var expected: [String] = []
        for f in fixes { single.process(f) { expected.append($0.jsonLine) } }
        #expect(single.pendingCount == 20, "every small request fires once and ends")
        #expect(expected.count == 270, "one entry into each small circle, nothing else")

        let batched = try engine()
        var got: [String] = []
        fixes.withUnsafeBufferPointer { batch in batched.process(batch: batch, emit: { got.append($0.jsonLine) }, outcome: { _, _ in }) }
        let first = (0..<max(got.count, expected.count)).first { $0 >= got.count || $0 >= expected.count || got[$0] != expected[$0] }
        #expect(first == nil, "notification \(first ?? -1) of \(expected.count) differs (\(got.count) in the batch)")
    }
}
