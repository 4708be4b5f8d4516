import Benchmark
import TriggerEngine

/// The engine's probe: a fix evaluated against the region index with no transition (the common case).
enum EngineBenchmarks {
    static func register() {
        Benchmark("Engine.sparseFix10kCircles") { benchmark, fixture in
            let (engine, fixes) = fixture
            var fired = 0
            for k in benchmark.scaledIterations {
                _ = engine.process(fixes.next(k)) { _ in fired += 1 }
            }
            blackHole(fired)
        } setup: {
            try Fixtures.sparseEngine(circles: 10_000, devices: 1_000)
        }
    }
}
