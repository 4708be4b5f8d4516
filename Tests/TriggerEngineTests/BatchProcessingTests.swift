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
}
