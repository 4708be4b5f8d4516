// swift-tools-version: 6.1
// libFuzzer targets for GeoTrigger's byte parsers. Built only by Tools/fuzz/run.sh (-sanitize=fuzzer,address; each
// target's main calls LLVMFuzzerRunDriver), so it lives outside the main package's normal build.
import PackageDescription

let package = Package(
    name: "geotrigger-fuzz",
    dependencies: [.package(name: "geotrigger", path: "../..")],
    targets: [
        .target(name: "FuzzDriver", swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "FuzzAdvertisingData",
            dependencies: ["FuzzDriver", .product(name: "Beacons", package: "geotrigger")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "FuzzBTSnoop",
            dependencies: ["FuzzDriver", .product(name: "Beacons", package: "geotrigger")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
