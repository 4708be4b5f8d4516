import Benchmark
import JSON
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

        // Loading regions (a start, a restart, PUT /v1/requests): a circle request's JSON parsed, decoded, compiled
        // and indexed; each iteration loads 1,000 into a new engine. Its ~10 ms window also counts what the
        // process's other threads allocate meanwhile (a clean clone's CI run counted a few fewer than the stored
        // 51,410): a tolerance of 500 still fails a change that adds one allocation per request.
        var loading = Benchmark.defaultConfiguration
        if smoke { loading.thresholds = [.mallocCountTotal: .init(absolute: [.p90: 500])] }
        Benchmark("Engine.loadCircleRequests", configuration: loading) { benchmark, texts in
            let engine = TriggerEngine()
            for k in benchmark.scaledIterations {
                let request = try RequestDecoder().decodeRequest(try JSONParser.parse(texts[k % texts.count]))
                _ = try engine.add(request)
            }
            blackHole(engine)
        } setup: {
            Fixtures.circleRequestTexts(count: 1_000)
        }
    }
}
