import JSON
import ArgumentParser
import Foundation
import TriggerEngine

/// Writes a large trace (NDJSON or CSV) and its region file for timing `geotrigger replay` end to end, and measures
/// the engine alone on the very same regions and fixes for the ratio.
struct TraceBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Writes a replay workload (regions + NDJSON/CSV trace) and prints the engine-only rate on it.")

    @Option(help: "Fixes in the trace.") var fixes = 10_000_000
    @Option(help: "Devices.") var devices = 10_000
    @Option(help: "Circle regions.") var regions = 10_000
    @Option(help: "Directory for regions.json, trace.ndjson and trace.csv.") var out: String
    @Option(help: "Random seed.") var seed: UInt64 = 7

    func run() throws {
        let w = Workload(shape: .circles, density: .sparse, regions: regions, devices: devices, fixes: fixes, seed: seed)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        // Regions as a SPEC §1 request file.
        var writer = JSONWriter(capacity: 1 << 20)
        writer.beginArray()
        for (k, c) in w.circles.enumerated() {
            writer.beginObject()
            writer.field("identifier", "r\(k)")
            writer.key("content"); writer.beginObject(); writer.field("title", "{event} {region.id}"); writer.endObject()
            writer.key("trigger"); writer.beginObject()
            writer.key("region"); writer.beginObject()
            writer.field("type", "circle"); writer.field("id", "c\(k)")
            writer.key("center"); writer.beginObject()
            writer.field("latitude", c.center.latitude); writer.field("longitude", c.center.longitude)
            writer.endObject()
            writer.field("radius", c.radius)
            writer.endObject()
            writer.field("repeats", true)
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        try Data(writer.bytes).write(to: URL(fileURLWithPath: out + "/regions.json"))

        let names = (0..<devices).map { "vehicle-\($0)" }
        let base = Timestamp(year: 2026, month: 11, day: 20)
        func time(_ k: Int) -> Timestamp { Timestamp(microseconds: base.microseconds + Int64(k) * 1000) }
        for name in ["trace.ndjson", "trace.csv"] { _ = FileManager.default.createFile(atPath: out + "/" + name, contents: nil) }
        let ndjson = try FileHandle(forWritingTo: URL(fileURLWithPath: out + "/trace.ndjson"))
        let csv = try FileHandle(forWritingTo: URL(fileURLWithPath: out + "/trace.csv"))
        var nd: [UInt8] = [], cs: [UInt8] = Array("device,timestamp,latitude,longitude,accuracy\n".utf8)
        nd.reserveCapacity(1 << 22); cs.reserveCapacity(1 << 22)
        for k in 0..<fixes {
            let fix = LocationFix(device: names[k % devices], timestamp: time(k), latitude: (w.fixLatitudes[k] * 1e6).rounded() / 1e6,
                                  longitude: (w.fixLongitudes[k] * 1e6).rounded() / 1e6, horizontalAccuracy: 5)
            var j = JSONWriter(capacity: 160)
            fix.writeJSON(to: &j)
            nd.append(contentsOf: j.bytes); nd.append(10)
            cs.append(contentsOf: Array("\(fix.device),".utf8))
            fix.timestamp.appendRFC3339(to: &cs)
            cs.append(contentsOf: Array(",\(fix.latitude),\(fix.longitude),5\n".utf8))
            if nd.count > 1 << 22 { ndjson.write(Data(nd)); nd.removeAll(keepingCapacity: true) }
            if cs.count > 1 << 22 { csv.write(Data(cs)); cs.removeAll(keepingCapacity: true) }
        }
        ndjson.write(Data(nd)); csv.write(Data(cs))
        try ndjson.close(); try csv.close()

        // The engine alone on the same regions and fixes (rounded as written), same order and timestamps.
        let engine = TriggerEngine()
        try engine.add(contentsOf: w.requests())
        var notifications = 0
        let clock = ContinuousClock()
        let start = clock.now
        for k in 0..<fixes {
            engine.process(LocationFix(device: names[k % devices], timestamp: time(k), latitude: (w.fixLatitudes[k] * 1e6).rounded() / 1e6,
                                       longitude: (w.fixLongitudes[k] * 1e6).rounded() / 1e6, horizontalAccuracy: 5)) { _ in notifications += 1 }
        }
        let d = clock.now - start
        let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        print("engine-only\t\(fixes)\t\(String(format: "%.0f", Double(fixes) / seconds))\t\(notifications)")
    }
}
