import ArgumentParser
import Foundation
import MallocHugePages

@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geotrigger-bench",
        abstract: "GeoTrigger's benchmarks; run through Tools/benchmark.sh, which builds in release mode and runs the peers in the same run.",
        subcommands: [EngineBench.self, TraceBench.self, BTSnoopBench.self, DeliveryBench.self, MQTTBench.self, QueryBench.self, RestartBench.self, ProximityBench.self],
        defaultSubcommand: EngineBench.self)

    /// First of all, the heap on huge pages (`MallocHugePages`: an exec of this binary, before anything runs).
    static func main() async {
        MallocHugePages.restartWithThemIfUseful()
        await main(nil)
    }
}

struct EngineBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Measures the trigger engine on generated workloads and exports them for the shapely peer.")

    @Option(help: "Region counts to measure.") var regions: [Int] = [10_000, 100_000]
    @Option(help: "Devices in the fix stream.") var devices = 100_000
    @Option(help: "Fixes per workload (including one warm-up fix per device).") var fixes = 2_000_000
    @Option(help: "Shapes: circles, polygons.") var shapes: [String] = ["circles", "polygons"]
    @Option(help: "Densities: sparse, dense.") var densities: [String] = ["sparse", "dense"]
    @Option(help: "Directory to export each workload to for the peer (one sub-directory per case).") var export: String?
    @Option(help: "Random seed.") var seed: UInt64 = 42

    func run() throws {
        print("case\tregions\tdevices\tfixes\tfixes_per_s\tns_per_fix\tcandidates_per_fix\tnotifications\tbytes_per_region\tbytes_per_device\tregions_added_per_s\tpolygons_validated_per_s")
        for shape in shapes {
            guard let s = Workload.Shape(rawValue: shape) else { throw ValidationError("unknown shape \(shape)") }
            for density in densities {
                guard let d = Workload.Density(rawValue: density) else { throw ValidationError("unknown density \(density)") }
                for count in regions {
                    let w = Workload(shape: s, density: d, regions: count, devices: devices, fixes: fixes, seed: seed)
                    let name = "\(shape)-\(density)-\(count)"
                    if let export { try PeerExport.write(w, to: URL(fileURLWithPath: export).appendingPathComponent(name)) }
                    let r = try EngineBenchmark.run(w)
                    print([name, "\(count)", "\(devices)", "\(r.fixes)", String(format: "%.0f", r.fixesPerSecond),
                           String(format: "%.0f", r.nanosecondsPerFix), String(format: "%.2f", r.candidatesPerFix),
                           "\(r.notifications)", String(format: "%.0f", r.bytesPerRegion), String(format: "%.0f", r.bytesPerDevice),
                           String(format: "%.0f", r.regionsAddedPerSecond), String(format: "%.0f", r.polygonsValidatedPerSecond)]
                        .joined(separator: "\t"))
                }
            }
        }
    }
}
