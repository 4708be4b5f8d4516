import JSON
import Foundation
import Testing
import TriggerEngine

@Suite(.enabled(if: CLIRunner.sharedDataAvailable, "skipped: needs ../shared/data (btsnoop capture)"))
struct ScanCommandTests {
    var capture: String { CLIRunner.sharedData.appendingPathComponent("btsnoop/capture.btsnoop").path }

    @Test func btsnoopReplayPrintsTheSixIBeaconSightings() throws {
        let r = try CLIRunner.run(["scan", "--btsnoop", capture, "--observer", "gw-1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 6)
        let sightings = try r.lines.map { try JSONParser.parse($0) }
        #expect(sightings.map { $0["minor"]?.doubleValue } == [2, 3, 8, 43, 43, 43])
        #expect(sightings.allSatisfy { $0["uuid"]?.stringValue == "e2c56db5-dffb-48d2-b060-d0f5a71096e0" })
        #expect(sightings[0]["rssi"] == nil)  // RSSI 127: not available
        #expect(sightings[3]["rssi"]?.doubleValue == -60)
        #expect(sightings[3]["address"]?.stringValue == "C0:FF:EE:00:00:01")
    }

    @Test func btsnoopReplayNamesTheObserverAfterTheCapturesAdapter() throws {
        // The capture's reports were all received on hci1 (its New Index records name hci0 and hci1); --adapter
        // only names captures that do not say.
        let r = try CLIRunner.run(["scan", "--btsnoop", capture, "--adapter", "hci0"])
        #expect(r.status == 0, "\(r.stderr)")
        let devices = try r.lines.map { try JSONParser.parse($0)["device"]?.stringValue }
        #expect(devices.count == 6)
        #expect(devices.allSatisfy { $0 == "\(ProcessInfo.processInfo.hostName)/hci1" }, "\(devices)")
    }

    @Test func btsnoopReplayWithRegionsFiresABeaconEntry() throws {
        let r = try CLIRunner.run(["scan", "--btsnoop", capture, "--observer", "gw-1", "--regions", CLIRunner.fixture("beacon-regions.json")])
        #expect(r.status == 0, "\(r.stderr)")
        let ns = try r.lines.map { try JSONParser.parse($0) }
        // Major 42 is first heard 2.3 s after the capture's first report, past the initial scan window (here the
        // 1 s exit timeout, shorter than 2 s): it arrived, so it is an entry (docs/semantics.md "Beacons").
        #expect(ns.map { $0["identifier"]?.stringValue } == ["booth-42"])
        #expect(ns.first?["beacon"]?["major"]?.doubleValue == 42)
    }

    @Test func sightingsFileRecordsWhatTheEngineWasGiven() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("sightings.ndjson").path
        let r = try CLIRunner.run(["scan", "--btsnoop", capture, "--observer", "gw-1", "--regions",
                                   CLIRunner.fixture("beacon-regions.json"), "--sightings", file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 1)  // the notification; the sightings went to the file
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(lines.map { $0["minor"]?.doubleValue } == [2, 3, 8, 43, 43, 43])
        #expect(lines.allSatisfy { $0["device"]?.stringValue == "gw-1" })
    }

    @Test func sightingsFileNeedsRegions() throws {
        let r = try CLIRunner.run(["scan", "--btsnoop", capture, "--sightings", "/tmp/unused.ndjson"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--sightings needs --regions"))
    }
}
