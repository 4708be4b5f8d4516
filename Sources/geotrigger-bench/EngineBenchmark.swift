import Foundation
import Geometry
import JSON
import TriggerEngine

/// Runs the full engine (index, exact tests, per-pair state machine, rendering of what fires) over a workload.
struct EngineBenchmark {
    struct Result {
        var fixes: Int
        var seconds: Double
        var notifications: Int
        var bytesPerRegion: Double
        var bytesPerDevice: Double
        var candidatesPerFix: Double
        /// Requests added (compiled, indexed) per second, in one `add(contentsOf:)`.
        var regionsAddedPerSecond: Double
        /// Polygons only: GEOS's validation (`PolygonValidation.validated`, what decoding a request does first) of
        /// the same polygons, per second; 0 for circles.
        var polygonsValidatedPerSecond: Double
        var fixesPerSecond: Double { Double(fixes) / seconds }
        var nanosecondsPerFix: Double { seconds * 1e9 / Double(fixes) }
    }

    static func run(_ w: Workload) throws -> Result {
        let requests = w.requests()
        let clock = ContinuousClock()
        var validatedPerSecond = 0.0
        if !w.polygons.isEmpty {
            let validating = clock.now
            for ring in w.polygons { _ = try PolygonValidation.validated(PolygonSet(polygons: [[ring]])) }
            validatedPerSecond = Double(w.polygons.count) / (clock.now - validating).seconds
        }
        let before = ProcessMemory.residentBytes()
        let engine = TriggerEngine()
        let adding = clock.now
        try engine.add(contentsOf: requests)
        let added = (clock.now - adding)
        let afterRegions = ProcessMemory.residentBytes()
        let names = (0..<w.devices).map { "device-\($0)" }
        let base = Timestamp(year: 2026, month: 11, day: 20)
        var notifications = 0
        // Warm-up pass over the first fix of every device: creates the device records (measured separately).
        let warm = min(w.devices, w.fixLatitudes.count / 2)
        for d in 0..<warm {
            engine.process(LocationFix(device: names[d], timestamp: base, latitude: w.fixLatitudes[d],
                                       longitude: w.fixLongitudes[d])) { _ in notifications += 1 }
        }
        let afterDevices = ProcessMemory.residentBytes()
        let n = w.fixLatitudes.count
        // Every notification is written as JSON into one reused buffer, the NDJSON sink's work: the engine hands
        // out notifications that render only when written, so counting them alone would measure less than the
        // product does.
        var json = JSONWriter(capacity: 1 << 16)
        // In batches, as replay and serve hand fixes over (the batch is built inside the timed loop, as each fix was).
        var batch: [LocationFix] = []
        batch.reserveCapacity(4096)
        let start = clock.now
        var k = warm
        while k < n {
            batch.removeAll(keepingCapacity: true)
            let end = min(n, k + 4096)
            for j in k..<end {
                batch.append(LocationFix(device: names[j % w.devices], timestamp: Timestamp(microseconds: base.microseconds + Int64(j) * 1000),
                                         latitude: w.fixLatitudes[j], longitude: w.fixLongitudes[j], horizontalAccuracy: 5))
            }
            k = end
            batch.withUnsafeBufferPointer { fixes in
                engine.process(batch: fixes, emit: { n in
                    notifications += 1
                    json.bytes.removeAll(keepingCapacity: true)
                    n.writeJSON(to: &json)
                }, outcome: { _, _ in })
            }
        }
        let elapsed = clock.now - start
        let seconds = elapsed.seconds
        return Result(
            fixes: n - warm, seconds: seconds, notifications: notifications,
            bytesPerRegion: Double(afterRegions - before) / Double(max(1, requests.count)),
            bytesPerDevice: Double(afterDevices - afterRegions) / Double(max(1, warm)),
            candidatesPerFix: Double(engine.statistics.candidateTests) / Double(engine.statistics.fixesEvaluated),
            regionsAddedPerSecond: Double(requests.count) / added.seconds,
            polygonsValidatedPerSecond: validatedPerSecond)
    }
}
