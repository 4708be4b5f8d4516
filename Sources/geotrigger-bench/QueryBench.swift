import JSON
import ArgumentParser
import Foundation
import Host
import Logging
import Storage
import TriggerEngine

/// The service's in-memory queries (issue 11): device → regions (`GET /v1/devices/{id}/regions`), region → devices
/// (`GET /v1/regions/{id}/devices`) and nearby (`GET /v1/nearby`), on the engine alone and through the engine host
/// (the actor `serve` asks, from several tasks at once), on a fleet-like state built by the fix workload.
struct QueryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queries",
        abstract: "Measures the in-memory queries on the engine and through the engine host.")

    @Option(help: "Circles.") var regions = 1_000
    @Option(help: "Devices.") var devices = 10_000
    @Option(help: "Fixes fed before querying (each device's newest is its position).") var fixes = 200_000
    @Option(help: "Density: sparse, dense.") var density = "sparse"
    @Option(help: "Queries per measurement.") var queries = 500_000
    @Option(help: "Nearby radius, metres.") var radius = 500.0
    @Option(help: "Concurrent tasks asking the host.") var tasks = 4
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(help: "Write the circles and each device's newest position here as CSV, for the PostGIS peer (Tools/bench/queries.py).")
    var export: String?

    func run() async throws {
        guard let d = Workload.Density(rawValue: density) else { throw ValidationError("unknown density \(density)") }
        let w = Workload(shape: .circles, density: d, regions: regions, devices: devices, fixes: fixes, seed: seed)
        var configuration = TriggerEngine.Configuration()
        configuration.keepsLastPosition = true
        configuration.tracksOccupants = true
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geotrigger-query-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let host = try EngineHost(store: try SQLiteStore(path: folder.appendingPathComponent("g.sqlite").path, logger: logger),
                                  log: MemoryHostLog(), configuration: configuration, feedBacklogLimit: .max, logger: logger)
        _ = try await host.add(try JSONParser.parse(Self.requestsJSON(w)))
        let names = (0..<devices).map { "device-\($0)" }
        let base = Timestamp(year: 2026, month: 11, day: 20)
        var batch: [(line: Int, fix: LocationFix)] = []
        for k in 0..<w.fixLatitudes.count {
            batch.append((k, LocationFix(device: names[k % devices], timestamp: Timestamp(microseconds: base.microseconds + Int64(k) * 1000),
                                         latitude: w.fixLatitudes[k], longitude: w.fixLongitudes[k], horizontalAccuracy: 5)))
            if batch.count == 5_000 || k == w.fixLatitudes.count - 1 {
                _ = try await host.process(fixes: batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        let occupied = await host.occupants(ofRegion: "c0")
        let states = await host.deviceStatuses(from: 0, limit: devices).statuses
        let memberships = states.reduce(0) { $0 + $1.memberships.count }
        print("# \(regions) circles (\(density)), \(devices) devices, \(fixes) fixes fed; \(memberships) memberships "
              + "(\(String(format: "%.2f", Double(memberships) / Double(max(1, devices)))) per device), region c0 holds \(occupied?.count ?? 0)")
        if let export { try Self.export(w, states, to: export) }
        print("query\tpath\ttasks\tqueries\tqueries_per_s\tus_per_query\tanswers_per_query")

        var rng = SplitMix64(seed: seed &+ 1)
        let deviceOrder = (0..<queries).map { _ in names[Int(rng.next() % UInt64(devices))] }
        let regionOrder = (0..<queries).map { _ in "c\(rng.next() % UInt64(regions))" }
        let points = (0..<queries).map { _ -> (Double, Double) in
            let k = Int(rng.next() % UInt64(w.fixLatitudes.count))
            return (w.fixLatitudes[k], w.fixLongitudes[k])
        }
        let radius = self.radius

        try await measure("device-regions", host: host, tasks: tasks, count: queries) { host, k in
            await host.status(ofDevice: deviceOrder[k])?.memberships.count ?? 0
        }
        try await measure("region-devices", host: host, tasks: tasks, count: queries) { host, k in
            await host.occupants(ofRegion: regionOrder[k])?.count ?? 0
        }
        try await measure("nearby", host: host, tasks: tasks, count: max(1, queries / 100)) { host, k in
            await host.nearby(latitude: points[k].0, longitude: points[k].1, radius: radius, limit: 100).count
        }
    }

    /// Runs `count` queries split over `tasks` concurrent tasks (and once on one task) and prints the rates.
    func measure(_ name: String, host: EngineHost, tasks: Int, count: Int,
                 _ query: @escaping @Sendable (EngineHost, Int) async -> Int) async throws {
        for t in Set([1, tasks]).sorted() {
            let clock = ContinuousClock()
            let start = clock.now
            let answers = await withTaskGroup(of: Int.self) { group in
                for task in 0..<t {
                    group.addTask {
                        var answers = 0
                        var k = task
                        while k < count {
                            answers += await query(host, k)
                            k += t
                        }
                        return answers
                    }
                }
                return await group.reduce(0, +)
            }
            let elapsed = clock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print([name, "host", "\(t)", "\(count)", String(format: "%.0f", Double(count) / seconds),
                   String(format: "%.2f", seconds * 1e6 / Double(count)), String(format: "%.2f", Double(answers) / Double(count))]
                .joined(separator: "\t"))
        }
    }

    /// `regions.csv` (id, latitude, longitude, radius) and `positions.csv` (device, latitude, longitude).
    static func export(_ w: Workload, _ states: [DeviceStatus], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var regions = ""
        for (k, c) in w.circles.enumerated() { regions += "c\(k),\(c.center.latitude),\(c.center.longitude),\(c.radius)\n" }
        try regions.write(toFile: folder + "/regions.csv", atomically: true, encoding: .utf8)
        var positions = ""
        for s in states { if let p = s.lastPosition { positions += "\(s.device),\(p.latitude),\(p.longitude)\n" } }
        try positions.write(toFile: folder + "/positions.csv", atomically: true, encoding: .utf8)
    }

    static func requestsJSON(_ w: Workload) -> String {
        "[" + w.circles.enumerated().map { k, c in
            #"{"identifier":"r\#(k)","content":{"title":"{event} {region.id}"},"trigger":{"repeats":true,"#
                + #""region":{"type":"circle","id":"c\#(k)","center":{"latitude":\#(c.center.latitude),"longitude":\#(c.center.longitude)},"radius":\#(c.radius)}}}"#
        }.joined(separator: ",") + "]"
    }
}
