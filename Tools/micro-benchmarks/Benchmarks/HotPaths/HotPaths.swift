import Benchmark
import Foundation

/// The hot functions one at a time. Each benchmark handles `scaledIterations` items per measured iteration, so the
/// allocation counts read per 1,000 items (the scaling factor): 0 means the hot path allocates nothing per item.
///
/// `GEOTRIGGER_MICRO_SMOKE=1` (CI): allocations only, a few iterations, zero tolerance against `Thresholds/`
/// (allocation counts do not depend on the machine's speed, so this checks what a timed unit test could not).
let smoke = ProcessInfo.processInfo.environment["GEOTRIGGER_MICRO_SMOKE"] != nil

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = smoke
        ? .init(metrics: [.mallocCountTotal], warmupIterations: 2, scalingFactor: .kilo, maxDuration: .seconds(5),
                maxIterations: 5, thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])])
        : .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions], warmupIterations: 3,
                scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 1_000)

    OutputBenchmarks.register()
    EngineBenchmarks.register()
    DecoderBenchmarks.register()
}
