import JSON
import Foundation
import TestSupport
import Testing
import TriggerEngine

@Suite(.enabled(if: CLIRunner.sharedDataAvailable, "skipped: needs ../shared/data (btsnoop capture)"))
struct ScanCommandTests {
    var capture: String { CLIRunner.sharedData.appendingPathComponent("btsnoop/capture.btsnoop").path }

    @Test func btsnoopReplayPrintsTheSixIBeaconSightings() async throws {
        let r = try await CLIRunner.run(["scan", "--btsnoop", capture, "--observer", "gw-1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 6)
        let sightings = try r.lines.map { try JSONParser.parse($0) }
        #expect(sightings.map { $0["minor"]?.doubleValue } == [2, 3, 8, 43, 43, 43])
        #expect(sightings.allSatisfy { $0["uuid"]?.stringValue == "e2c56db5-dffb-48d2-b060-d0f5a71096e0" })
        #expect(sightings[0]["rssi"] == nil)  // RSSI 127: not available
        #expect(sightings[3]["rssi"]?.doubleValue == -60)
        #expect(sightings[3]["address"]?.stringValue == "C0:FF:EE:00:00:01")
    }

    @Test func btsnoopReplayNamesTheObserverAfterTheCapturesAdapter() async throws {
        // The capture's reports were all received on hci1 (its New Index records name hci0 and hci1); --adapter
        // only names captures that do not say.
        let r = try await CLIRunner.run(["scan", "--btsnoop", capture, "--adapter", "hci0"])
        #expect(r.status == 0, "\(r.stderr)")
        let devices = try r.lines.map { try JSONParser.parse($0)["device"]?.stringValue }
        #expect(devices.count == 6)
        #expect(devices.allSatisfy { $0 == "\(ProcessInfo.processInfo.hostName)/hci1" }, "\(devices)")
    }

    @Test func btsnoopReplayWithRegionsFiresABeaconEntry() async throws {
        let r = try await CLIRunner.run(["scan", "--btsnoop", capture, "--observer", "gw-1", "--regions", CLIRunner.fixture("beacon-regions.json")])
        #expect(r.status == 0, "\(r.stderr)")
        let ns = try r.lines.map { try JSONParser.parse($0) }
        // Major 42 is first heard 2.3 s after the capture's first report, past the initial scan window (here the
        // 1 s exit timeout, shorter than 2 s): it arrived, so it is an entry (docs/semantics.md "Beacons").
        #expect(ns.map { $0["identifier"]?.stringValue } == ["booth-42"])
        #expect(ns.first?["beacon"]?["major"]?.doubleValue == 42)
    }

    @Test func sightingsFileRecordsWhatTheEngineWasGiven() async throws {
        let dir = try TestFolders.make("scan")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("sightings.ndjson").path
        let r = try await CLIRunner.run(["scan", "--btsnoop", capture, "--observer", "gw-1", "--regions",
                                   CLIRunner.fixture("beacon-regions.json"), "--sightings", file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 1)  // the notification; the sightings went to the file
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(lines.map { $0["minor"]?.doubleValue } == [2, 3, 8, 43, 43, 43])
        #expect(lines.allSatisfy { $0["device"]?.stringValue == "gw-1" })
    }

    @Test func sightingsFileNeedsRegions() async throws {
        let r = try await CLIRunner.run(["scan", "--btsnoop", capture, "--sightings", "/tmp/unused.ndjson"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--sightings needs --regions"))
    }
}

/// `scan --btsnoop` on a capture written here byte by byte (H4, no adapter names): the advertising quirks real
/// controllers produce are decoded and reported in the summary line.
@Suite struct ScanQuirksCommandTests {
    /// Flags + iBeacon (major 42, minor 43), as in the shared capture.
    static let iBeacon: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15, 0xE2, 0xC5, 0x6D, 0xB5, 0xDF,
                                   0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0, 0x00, 0x2A, 0x00,
                                   0x2B, 0xC5]
    static let address: [UInt8] = [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0]  // C0:FF:EE:00:00:01, little-endian

    static func name(_ n: Int) -> [UInt8] { [UInt8(n + 1), 0x09] + [UInt8](repeating: 0x41, count: n) }

    static func legacy(_ data: [UInt8]) -> [UInt8] {
        let params: [UInt8] = [0x02, 1, 0x03, 0x01] + address + [UInt8(data.count)] + data + [0xC4]
        return [0x3E, UInt8(params.count)] + params
    }

    /// One extended report with Data_Status `status` (Event_Type bits 5–6), SID 1.
    static func extended(_ data: ArraySlice<UInt8>, status: UInt8) -> [UInt8] {
        var params: [UInt8] = [0x0D, 1, status << 5, 0x00, 0x01] + address
        params += [0x01, 0x00, 0x01, 0x7F, 0xBA, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)
        params += [UInt8(data.count)] + data
        return [0x3E, UInt8(params.count)] + params
    }

    /// A btsnoop v1 H4 file of these events, one a millisecond.
    static func capture(_ events: [[UInt8]]) -> Data {
        func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        var bytes = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
        for (k, e) in events.enumerated() {
            let time = UInt64(0x00E0_3AB4_4A67_6000) + UInt64(k) * 1000
            bytes += be32(UInt32(e.count + 1)) + be32(UInt32(e.count + 1)) + be32(0b11) + be32(0)
            bytes += be32(UInt32(time >> 32)) + be32(UInt32(truncatingIfNeeded: time)) + [0x04] + e
        }
        return Data(bytes)
    }

    @Test func oversizedAndFragmentedReportsAreDecodedAndSummarised() async throws {
        let joined = Self.name(200) + Self.iBeacon
        let file = TestFolders.path("quirks", suffix: ".btsnoop")
        try Self.capture([
            Self.legacy(Self.iBeacon + Self.name(10)),
            Self.extended(joined[0..<200], status: 1),
            Self.extended(joined[200...], status: 0),
        ]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try await CLIRunner.run(["scan", "--btsnoop", file.path, "--adapter", "hci2"])
        #expect(r.status == 0, "\(r.stderr)")
        let sightings = try r.lines.map { try JSONParser.parse($0) }
        #expect(sightings.map { $0["major"]?.doubleValue } == [42, 42])
        #expect(sightings.map { $0["rssi"]?.doubleValue } == [-60, -70])
        // H4 captures name no adapter: --adapter names the observer.
        #expect(sightings.allSatisfy { $0["device"]?.stringValue == "\(ProcessInfo.processInfo.hostName)/hci2" })
        #expect(r.stderr.contains(
            "advertising reports 2, beacons 2, malformed events 0, legacy reports over 31 bytes 1, reassembled from fragments 1"),
            "\(r.stderr)")
    }
}
