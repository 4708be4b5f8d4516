// swift-tools-version: 6.1
// GeoTrigger's micro-benchmarks (issue 13): the hot functions one by one, with their allocation counts, through
// ordo-one/benchmark. A package of its own, so the product's build and tests do not build the benchmark harness.
// GPL-2.0-or-later.
//
//   swift package benchmark                       # full run: time, throughput, allocations
//   GEOTRIGGER_MICRO_SMOKE=1 swift package benchmark thresholds check   # CI: allocations only, against Thresholds/
import PackageDescription

let package = Package(
    name: "geotrigger-micro-benchmarks",
    dependencies: [
        // Named: a path dependency's identity is otherwise its folder's name, which a clone may change.
        .package(name: "geotrigger", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "HotPaths",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "JSON", package: "geotrigger"),
                .product(name: "TriggerEngine", package: "geotrigger"),
                .product(name: "Ingest", package: "geotrigger"),
                .product(name: "Beacons", package: "geotrigger"),
            ],
            path: "Benchmarks/HotPaths",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ]
)
