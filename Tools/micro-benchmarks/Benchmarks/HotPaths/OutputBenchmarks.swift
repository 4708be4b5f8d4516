import Benchmark
import JSON
import TriggerEngine

/// Notification output: SPEC §4 objects rendered to bytes, and firings from the engine through to bytes.
enum OutputBenchmarks {
    static func register() {
        // 1,000 real notifications (entries and exits of 500 devices at one circle), rendered again and again into
        // one reused buffer: the NDJSON sink's and the journal's work per notification.
        Benchmark("Output.notificationJSON") { benchmark, notifications in
            var w = JSONWriter(capacity: 1 << 20)
            for k in benchmark.scaledIterations {
                if k % notifications.count == 0 { w.bytes.removeAll(keepingCapacity: true) }
                notifications[k % notifications.count].writeJSON(to: &w)
            }
            blackHole(w.bytes.count)
        } setup: {
            try Fixtures.firings(count: 1_000)
        }

        // The engine firing (a transition on every fix, its notification built) and the notification rendered.
        Benchmark("Output.firingAndRendering") { benchmark, fixture in
            var w = JSONWriter(capacity: 1 << 20)
            let (engine, fixes) = fixture
            for k in benchmark.scaledIterations {
                w.bytes.removeAll(keepingCapacity: true)
                _ = engine.process(fixes.next(k)) { $0.writeJSON(to: &w) }
            }
            blackHole(w.bytes.count)
        } setup: {
            try Fixtures.alternatingEngine()
        }
    }
}
