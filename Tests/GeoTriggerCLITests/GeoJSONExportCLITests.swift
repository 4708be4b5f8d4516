import Foundation
import JSON
import TestSupport
import Testing

/// `replay` with zones drawn in geojson.io and QGIS (the exports in Fixtures/): they load with no identifiers
/// written, repeat, and notify with words; `--id-property` names them; a bad feature is named as the user wrote it.
@Suite struct GeoJSONExportCLITests {
    /// Each device goes out, in, out, in, out of its zone (centres of the fixtures' zones), a minute apart.
    static func trace(_ centres: [(device: String, lat: Double, lon: Double)]) -> String {
        var lines: [String] = []
        for c in centres {
            for step in 0..<5 {
                let lat = step % 2 == 1 ? c.lat : 52.70
                lines.append(#"{"device": "\#(c.device)", "timestamp": \#(1_790_000_000 + step * 60), "latitude": \#(lat), "longitude": \#(c.lon)}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let qgisCentres = [("w", 52.5020, 13.4430), ("y", 52.4915, 13.4620), ("n", 52.54125, 13.3720)]
    static let geojsonIOCentres = [("a", 52.5215, 13.4025), ("d", 52.5320, 13.4235), ("g", 52.5105, 13.3905)]

    /// (identifier, event, title, body) of every notification.
    static func notifications(_ r: CLIRunner.Result) throws -> [(id: String, event: String, title: String, body: String)] {
        try r.lines.map { line in
            let n = try JSONParser.parse(line)
            return (n["identifier"]?.stringValue ?? "", n["trigger"]?["event"]?.stringValue ?? "",
                    n["content"]?["title"]?.stringValue ?? "", n["content"]?["body"]?.stringValue ?? "")
        }
    }

    @Test func aQGISExportWithIdPropertyFiresEveryEntryAndExit() async throws {
        let r = try await CLIRunner.run(["replay", CLIRunner.fixture("qgis-export.geojson"), "-", "--id-property", "fid"],
                                        stdin: Self.trace(Self.qgisCentres))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("GeoJSON defaults applied where features leave them out: repeats, title, body"), "\(r.stderr)")
        let ns = try Self.notifications(r)
        for (id, title) in [("1", "Warehouse"), ("2", "Yard"), ("3", "3")] {
            let mine = ns.filter { $0.id == id }
            #expect(mine.map(\.event) == ["entry", "exit", "entry", "exit"], "\(id): \(mine.map(\.event))")
            #expect(mine.allSatisfy { $0.title == title && $0.body.contains(": \($0.event) at 2026-") }, "\(mine)")
        }
    }

    @Test func aGeoJSONIOExportGetsTheSameIdentifiersEveryRun() async throws {
        let trace = Self.trace(Self.geojsonIOCentres)
        let first = try await CLIRunner.run(["replay", CLIRunner.fixture("geojson-io-export.geojson"), "-"], stdin: trace)
        let second = try await CLIRunner.run(["replay", CLIRunner.fixture("geojson-io-export.geojson"), "-"], stdin: trace)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("defaults applied where features leave them out: identifier, radius, repeats, title, body"), "\(first.stderr)")
        let ns = try Self.notifications(first)
        #expect(ns.count == 12)
        #expect(Set(ns.map(\.id)).count == 3 && ns.allSatisfy { $0.id.hasPrefix("feature-") })
        #expect(Set(ns.map(\.title)).isSuperset(of: ["Depot Nord", "Main gate"]))
        #expect(first.stdout == second.stdout)
    }

    @Test func aBadFeatureIsNamedAsTheUserWroteIt() async throws {
        let folder = try TestFolders.make("geojson")
        let path = folder.appendingPathComponent("zones.geojson").path
        let good = #"{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}"#
        try #"{"type": "FeatureCollection", "features": [\#(good), \#(good), \#(good), {"type": "Feature", "properties": {"radius": "wide"}, "geometry": {"type": "Point", "coordinates": [13.41, 52.5]}}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try await CLIRunner.run(["replay", path, "-"], stdin: "")
        #expect(r.status == 2)
        #expect(r.stderr.contains("features[3].properties.radius: expected a number, found a string"), "\(r.stderr)")
        #expect(!r.stderr.contains("trigger.region"), "\(r.stderr)")
    }
}
