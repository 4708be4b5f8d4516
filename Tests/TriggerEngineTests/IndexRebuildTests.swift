import Geometry
import JSON
import Testing
import TestSupport
@testable import TriggerEngine

/// Requests added one at a time leave the newest in the index's overflow, which every query then probes; once the
/// queries have paid for it, the engine rebuilds the index between batches. The rebuild changes no answer: an
/// engine given the same requests at once (its index built whole from the start) fires the same notifications,
/// byte for byte, deliveryIds included.
@Suite struct IndexRebuildTests {
    @Test func overflowIsRebuiltBetweenBatchesWithTheSameNotifications() throws {
        var rng = SplitMix(seed: 0x1DE7_0F10)
        let origin = Coordinate(latitude: 52.5, longitude: 13.4)
        let content = NotificationContent(title: "{event} {region.id}", body: "{device} at {fix.time}")
        let requests = (0..<300).map { k in
            NotificationRequest(identifier: "r\(k)", content: content, trigger: LocationTrigger(
                region: Region(id: "c\(k)", shape: .circle(
                    center: Coordinate(latitude: origin.latitude + rng.double(0, 0.05),
                                       longitude: origin.longitude + rng.double(0, 0.08)),
                    radius: rng.double(100, 400))),
                repeats: true))
        }
        let oneByOne = TriggerEngine(), atOnce = TriggerEngine()
        for r in requests { try oneByOne.add(r) }
        try atOnce.add(contentsOf: requests)
        let left = oneByOne.core.index.overflowCount
        #expect(left > 0, "the last requests added one by one wait in the overflow")
        #expect(atOnce.core.index.overflowCount == 0)

        // 200 devices walking over the circles, 90,000 fixes in batches of 1,000: past the 65,536 queries that
        // pay for a rebuild of this small index.
        var positions = (0..<200).map { _ in (rng.double(0, 0.05), rng.double(0, 0.08)) }
        let base = Timestamp(year: 2026, month: 11, day: 20)
        var fixes: [LocationFix] = []
        for k in 0..<90_000 {
            let d = k % positions.count
            positions[d].0 = min(0.05, max(0, positions[d].0 + rng.double(-0.0004, 0.0004)))
            positions[d].1 = min(0.08, max(0, positions[d].1 + rng.double(-0.0006, 0.0006)))
            fixes.append(LocationFix(device: "d\(d)", timestamp: Timestamp(microseconds: base.microseconds + Int64(k) * 1000),
                                     latitude: origin.latitude + positions[d].0, longitude: origin.longitude + positions[d].1,
                                     horizontalAccuracy: 5))
        }
        func run(_ engine: TriggerEngine) -> [String] {
            var out: [String] = []
            var json = JSONWriter(capacity: 1 << 12)
            for start in stride(from: 0, to: fixes.count, by: 1000) {
                fixes[start..<min(fixes.count, start + 1000)].withUnsafeBufferPointer { batch in
                    engine.process(batch: batch, emit: { n in
                        json.bytes.removeAll(keepingCapacity: true)
                        n.writeJSON(to: &json)
                        out.append(String(decoding: json.bytes, as: UTF8.self))
                    }, outcome: { _, _ in })
                }
            }
            return out
        }
        let rebuilt = run(oneByOne), whole = run(atOnce)
        #expect(oneByOne.core.index.overflowCount == 0, "the overflow of \(left) nodes was rebuilt into the grid")
        #expect(rebuilt.count > 1000)
        #expect(rebuilt == whole)
    }
}
