import JSON
import Foundation
import TestSupport
import Testing
import TriggerEngine

@Suite struct ReplayCommandTests {
    @Test func demoReplayMatchesItsGoldenFile() async throws {
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.csv",
                                   "--expect", CLIRunner.fixture("demo-csv.expected.ndjson")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 10)
        #expect(r.stderr.contains("10 notifications match"))
        // Every line is a SPEC §4 notification.
        for line in r.lines {
            let v = try JSONParser.parse(line)
            #expect(v["deliveryId"]?.stringValue?.hasPrefix(v["identifier"]?.stringValue ?? "?") == true)
            #expect(v["trigger"]?["event"]?.stringValue != nil)
        }
    }

    @Test func theREADMEDemoGPXReplayMatchesItsGoldenFile() async throws {
        // One GPX track per truck: the demo file names its devices by track.
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.gpx", "--device-per-track",
                                   "--expect", "Data/demo-expected.ndjson"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = try r.lines.map { line -> String in
            let v = try JSONParser.parse(line)
            return "\(v["trigger"]?["event"]?.stringValue ?? "?") \(v["identifier"]?.stringValue ?? "?") \(v["device"]?.stringValue ?? "?")"
        }
        // What the demo is drawn to show: arrivals and departures with hysteresis, a completed dwell and a cancelled
        // one, a device-scoped zone, and a one-shot polygon with a hole that fires once for the first truck.
        #expect(events.contains("entry loading-bay-dwell truck-12"))
        #expect(!events.contains("entry loading-bay-dwell truck-13"))
        #expect(events.filter { $0.hasPrefix("entry tempelhof-field-once") }.count == 1)
        #expect(events.count == 10)
    }

    @Test func brokenGoldenFileFailsWithAReadableDiff() async throws {
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.csv",
                                   "--expect", CLIRunner.fixture("demo-csv.broken.ndjson")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("NOT met: 2 of 10 notifications differ"))
        #expect(r.stderr.contains("differs at content.title"))
        #expect(r.stderr.contains("differs at firedAt"))
    }

    @Test func replayIsRepeatableAndWriteExpectRecordsIt() async throws {
        let golden = TestFolders.path("gt", suffix: ".ndjson").path
        defer { try? FileManager.default.removeItem(atPath: golden) }
        let first = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.csv", "--write-expect", golden])
        #expect(first.status == 0)
        let second = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.csv", "--expect", golden])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(first.stdout == second.stdout)
    }

    @Test func badRecordsAreReportedCountedAndSkipped() async throws {
        let trace = """
            {"device":"t","timestamp":"2026-11-20T07:00:00Z","latitude":52.55,"longitude":13.40}
            {"device":"t","timestamp":"2026-11-20T07:00:05Z","latitude":95,"longitude":13.40}
            not json at all
            {"device":"t","timestamp":"2026-11-20T07:00:10Z","latitude":52.5400,"longitude":13.4000}
            {"device":"t","timestamp":"2026-11-20T07:00:01Z","latitude":52.5400,"longitude":13.4000}

            """
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "-", "--format", "ndjson"], stdin: trace)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("-:2"))  // line 2: latitude out of range
        #expect(r.stderr.contains("-:3"))  // line 3: malformed
        #expect(r.stderr.contains("1 late"))
        #expect(r.lines.count == 1)  // the entry into Depot North
        let strict = try await CLIRunner.run(["replay", "Data/demo-requests.json", "-", "--format", "ndjson", "--strict"], stdin: trace)
        #expect(strict.status == 2)
        #expect(strict.stderr.contains("--strict"))
    }

    @Test func invalidRegionFileIsRefusedWithTheRequestAndField() async throws {
        let r = try await CLIRunner.run(["replay", CLIRunner.fixture("bad-regions.json"), "Data/demo-drive.csv"])
        #expect(r.status == 2)
        #expect(r.stderr.contains(#"request "bow-tie", [1].trigger.region.geometry: Self-intersection"#), "\(r.stderr)")
    }

    @Test func geoJSONFeatureCollectionWorksAsARegionFile() async throws {
        let r = try await CLIRunner.run(["replay", CLIRunner.fixture("regions.geojson"), "Data/demo-drive.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let ids = Set(r.lines.compactMap { try? JSONParser.parse($0)["identifier"]?.stringValue })
        #expect(ids == ["depot", "mitte-zone"])
    }

    @Test func convertPrintsTheFixesTheEngineSees() async throws {
        let r = try await CLIRunner.run(["convert", "Data/demo-drive.csv"])
        #expect(r.status == 0)
        #expect(r.lines.count == 323)
        let first = try JSONParser.parse(r.lines[0])
        #expect(first["device"]?.stringValue == "truck-12")
        #expect(first["horizontalAccuracy"]?.doubleValue == 4)
    }
}
