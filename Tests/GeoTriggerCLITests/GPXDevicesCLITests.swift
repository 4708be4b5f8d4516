import JSON
import Foundation
import TestSupport
import Testing
import TriggerEngine

/// What a GPX file's device is on the command line: one per file, `--device`, `--device-per-track`, `--waypoints`.
@Suite struct GPXDevicesCLITests {
    static func devices(_ r: CLIRunner.Result) -> [String: Int] {
        var count: [String: Int] = [:]
        for line in r.lines { count[(try? JSONParser.parse(line)["device"]?.stringValue) ?? "?", default: 0] += 1 }
        return count
    }

    @Test func aGPXFileIsOneDeviceNamedByTheFileOrByDevice() async throws {
        // The demo file holds two tracks, truck-12 and truck-13.
        let byFile = try await CLIRunner.run(["convert", "Data/demo-drive.gpx"])
        #expect(byFile.status == 0, "\(byFile.stderr)")
        #expect(Self.devices(byFile).keys.sorted() == ["demo-drive"])
        let named = try await CLIRunner.run(["convert", "Data/demo-drive.gpx", "--device", "van-7"])
        #expect(Self.devices(named).keys.sorted() == ["van-7"])
        #expect(named.lines.count == byFile.lines.count)
        let byTrack = try await CLIRunner.run(["convert", "Data/demo-drive.gpx", "--device-per-track"])
        #expect(Self.devices(byTrack).keys.sorted() == ["truck-12", "truck-13"])
        #expect(byTrack.lines.count == byFile.lines.count)
    }

    @Test func deviceAndDevicePerTrackContradict() async throws {
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.gpx", "--device", "x", "--device-per-track"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("choose one"))
    }

    @Test func waypointsAreReadOnlyWithWaypoints() async throws {
        let path = TestFolders.path("walk", suffix: ".gpx").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
            <?xml version="1.0"?>
            <gpx version="1.1"><wpt lat="52.50" lon="13.40"><time>2026-11-20T06:00:00Z</time><name>home</name></wpt>
            <trk><name>ACTIVE LOG</name><trkseg>
            <trkpt lat="52.54" lon="13.40"><time>2026-11-20T07:00:00Z</time></trkpt>
            <trkpt lat="52.55" lon="13.40"><time>2026-11-20T07:01:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let without = try await CLIRunner.run(["convert", path, "--device", "walker"])
        #expect(without.status == 0)
        #expect(without.lines.count == 2)
        #expect(without.stderr.contains("1 waypoints left out (they are not a track); --waypoints reads them"), "\(without.stderr)")
        let with = try await CLIRunner.run(["convert", path, "--device", "walker", "--waypoints"])
        #expect(with.lines.count == 3)
        #expect(Self.devices(with) == ["walker": 3])
        #expect(!with.stderr.contains("waypoints left out"))
    }

    /// The Garmin file: eight tracks `ACTIVE LOG`…`#8` of one walk and seven waypoints.
    @Test(.enabled(if: CLIRunner.sharedDataAvailable, "skipped: needs ../shared/data (gpx/cerknicko-jezero.gpx)"))
    func aGarminFileWithEightTracksIsOneDevice() async throws {
        let file = CLIRunner.sharedData.appendingPathComponent("gpx/cerknicko-jezero.gpx").path
        let r = try await CLIRunner.run(["convert", file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.devices(r) == ["cerknicko-jezero": 296])
        #expect(r.stderr.contains("7 waypoints left out"))
        let byTrack = try await CLIRunner.run(["convert", file, "--device-per-track"])
        #expect(Self.devices(byTrack).keys.contains("ACTIVE LOG #2"))
        #expect(Self.devices(byTrack).count == 7)  // tracks with timed points; the first ACTIVE LOG has none
        let withWaypoints = try await CLIRunner.run(["convert", file, "--waypoints"])
        #expect(withWaypoints.lines.count == 297)  // one of the seven waypoints has a time
        #expect(withWaypoints.stderr.contains("rejected 6 records"))  // the six without <time>
    }
}
