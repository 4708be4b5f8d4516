import Beacons
import Foundation
import JSON
import TestSupport
import Testing
import TriggerEngine

/// `scan --btsnoop` on captures written here (no shared data): the replay thread hands sightings over in batches
/// of 4,096, so these captures span several batches, and what comes before damage is still printed.
struct ScanCaptureCLITests {
    /// `count` iBeacon reports, minor = index mod 65,536, 10 ms apart.
    static func capture(_ count: Int, at path: String) throws {
        let writer = try BTSnoopWriter(path: path, datalink: .h4)
        let uuid = UUID128(string: "e2c56db5-dffb-48d2-b060-d0f5a71096e0")!
        let base = Timestamp(year: 2026, month: 11, day: 20)
        for k in 0..<count {
            let frame = BeaconFrame(kind: .iBeacon, identity: .iBeacon(uuid: uuid, major: 1, minor: UInt16(k % 65_536)), txPower: -59)
            let ad = try #require(frame.advertisingData())
            let report = HCIAdvertisingReport(format: .legacy, eventType: 3, addressType: 1,
                                              address: BluetoothAddress(value: 0xC0FFEE000000 | UInt64(k % 7)),
                                              rssi: -60, txPower: nil, data: ArraySlice(ad))
            let event = try #require(HCIAdvertisingReport.leMetaEvent([report]))
            try writer.appendEvent(event, timestamp: Timestamp(microseconds: base.microseconds + Int64(k) * 10_000))
        }
        try writer.close()
    }

    static func folder() throws -> URL {
        let dir = try TestFolders.make("scan-capture")
        return dir
    }

    @Test func everySightingOfAManyBatchCaptureIsPrintedInCaptureOrder() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("c.btsnoop").path
        try Self.capture(10_000, at: path)
        let r = try await CLIRunner.run(["scan", "--btsnoop", path, "--observer", "gw"])
        #expect(r.status == 0, "\(r.stderr)")
        let minors = try r.lines.map { try JSONParser.parse($0)["minor"]?.doubleValue }
        #expect(minors == (0..<10_000).map { Double($0) })
        #expect(r.stderr.contains("advertising reports 10000, beacons 10000"), "\(r.stderr)")
    }

    @Test func aCaptureBrokenOffPrintsWhatCameBeforeAndSaysWhere() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("c.btsnoop").path
        try Self.capture(9_000, at: path)
        // Half a record header: the file ends inside record 9,001.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 0, 30, 0, 0, 0, 30, 0, 0]))
        try handle.close()
        let r = try await CLIRunner.run(["scan", "--btsnoop", path, "--observer", "gw"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("record 9001"), "\(r.stderr)")
        let minors = try r.lines.map { try JSONParser.parse($0)["minor"]?.doubleValue }
        #expect(minors == (0..<9_000).map { Double($0) })
    }
}
