// swift-tools-version: 6.1
// libFuzzer targets for every GeoTrigger parser a user's bytes reach. Built only by Tools/fuzz/run.sh
// (-sanitize=fuzzer,address; each target's main calls LLVMFuzzerRunDriver), so it lives outside the main package's
// normal build. docs/fuzzing.md lists the targets, what each asserts, and the long-run results.
import PackageDescription

let v6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
let engine: Target.Dependency = .product(name: "TriggerEngine", package: "geotrigger")
let ingest: Target.Dependency = .product(name: "Ingest", package: "geotrigger")
let beacons: Target.Dependency = .product(name: "Beacons", package: "geotrigger")
let json: Target.Dependency = .product(name: "JSON", package: "geotrigger")

/// One executable per parser: each links only what its parser needs.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzDriver"] + dependencies, swiftSettings: v6)
}

let package = Package(
    name: "geotrigger-fuzz",
    dependencies: [.package(name: "geotrigger", path: "../..")],
    targets: [
        .target(name: "FuzzDriver", swiftSettings: v6),
        // Invariants shared by the targets: chunk independence, SPEC §2 fix ranges, SPEC §1 request rules.
        .target(
            name: "FuzzChecks",
            dependencies: [json, engine, ingest, .product(name: "Geometry", package: "geotrigger")],
            swiftSettings: v6),
        fuzzTarget("FuzzAdvertisingData", [beacons]),
        fuzzTarget("FuzzBTSnoop", [beacons]),
        fuzzTarget("FuzzGPX", ["FuzzChecks", ingest]),
        fuzzTarget("FuzzNMEA", ["FuzzChecks", ingest]),
        fuzzTarget("FuzzCSV", ["FuzzChecks", ingest]),
        fuzzTarget("FuzzNDJSONFixes", ["FuzzChecks", json, ingest, engine]),
        fuzzTarget("FuzzNDJSONSightings", ["FuzzChecks", ingest, engine]),
        fuzzTarget("FuzzOwnTracks", ["FuzzChecks", ingest, engine]),
        fuzzTarget("FuzzTraccar", ["FuzzChecks", ingest, engine]),
        fuzzTarget("FuzzTraceDetect", ["FuzzChecks", ingest]),
        fuzzTarget("FuzzRequestJSON", ["FuzzChecks", json, engine]),
        fuzzTarget("FuzzGeoJSON", ["FuzzChecks", json, engine]),
        // The framing of the server's ingest reader, with Ingest's own LineSplitter and StreamingRecordDecoder.
        fuzzTarget("FuzzIngestFraming", ["FuzzChecks", json, ingest, engine]),
    ]
)
