#if canImport(Glibc)
import Glibc
#endif
import Testing
import TriggerEngine
@testable import Beacons

/// The glue `geotrigger scan` uses for live scanning and replay: AD + address + RSSI + time → sighting.
@Suite struct BeaconScanPipelineTests {
    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func replayingTheCaptureGivesSixSightings() throws {
        var pipeline = BeaconScanPipeline(observer: "gw-1")
        var got: [BeaconSighting] = []
        try pipeline.replay(BTSnoopReader(path: BeaconData.path("btsnoop/capture.btsnoop"))) { got.append($0) }
        #expect(got.count == 6)
        #expect(pipeline.statistics.advertisements == 6 && pipeline.statistics.beacons == 6)
        #expect(pipeline.statistics.malformedEvents == 0)

        let uuid = try #require(UUID128(string: "e2c56db5-dffb-48d2-b060-d0f5a71096e0"))
        let ids: [(UInt16, UInt16)] = [(1, 2), (1, 3), (7, 8), (42, 43), (42, 43), (42, 43)]
        #expect(got.map(\.identity) == ids.map { .iBeacon(uuid: uuid, major: $0.0, minor: $0.1) })
        #expect(got.map(\.rssi) == [nil, nil, nil, -60, -75, -90])
        #expect(got.map(\.txPower) == [-59, -59, -40, -59, -59, -59])
        #expect(got.map(\.address) == ["00:AA:01:00:00:00", "00:AA:01:00:00:00", "00:AA:01:00:00:00",
                                      "C0:FF:EE:00:00:01", "C0:FF:EE:00:00:01", "C0:FF:EE:00:00:01"])
        #expect(got.allSatisfy { $0.device == "gw-1" })
        #expect(got.first?.timestamp.rfc3339 == "2026-11-22T08:22:22.787633Z")
        // Running average: −60 → 1.12 m (near); mean(−60, −75) → 2.66 m (near); median of three −75 → 6.3 m (far).
        #expect(got.map(\.proximity) == [.unknown, .unknown, .unknown, .near, .near, .far])
    }

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func controllerFilterSelectsOneAdapter() throws {
        var pipeline = BeaconScanPipeline(observer: "gw-1")
        var count = 0
        try pipeline.replay(BTSnoopReader(path: BeaconData.path("btsnoop/capture.btsnoop")), controllerIndex: 0) { _ in count += 1 }
        #expect(count == 0)  // all six reports were received on hci1
    }

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func replayNamesTheObserverAfterTheCapturesAdapter() throws {
        var pipeline = BeaconScanPipeline(observer: "vm/hci0")
        var got: [BeaconSighting] = []
        try pipeline.replay(BTSnoopReader(path: BeaconData.path("btsnoop/capture.btsnoop")),
                            observerForAdapter: { "vm/\($0)" }) { got.append($0) }
        // All six reports were received on hci1, which the capture's New Index record names.
        #expect(got.count == 6 && got.allSatisfy { $0.device == "vm/hci1" })
        #expect(pipeline.observer == "vm/hci0", "the pipeline's own observer is left as it was")
        // Without naming, every sighting keeps the given observer.
        var plain = BeaconScanPipeline(observer: "gw-1")
        var devices: Set<String> = []
        try plain.replay(BTSnoopReader(path: BeaconData.path("btsnoop/capture.btsnoop"))) { devices.insert($0.device) }
        #expect(devices == ["gw-1"])
    }

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func captureNamesItsAdaptersInNewIndexRecords() throws {
        let reader = try BTSnoopReader(path: BeaconData.path("btsnoop/capture.btsnoop"))
        var names: [UInt16: String] = [:]
        while let r = try reader.next() {
            if let name = r.newIndexAdapterName, let index = r.controllerIndex { names[index] = name }
        }
        #expect(names == [0: "hci0", 1: "hci1"])
    }

    /// A monitor capture's New Index record: type, bus, address (6), name (8, NUL-padded).
    static func newIndex(_ name: [UInt8]) -> [UInt8] {
        [0x00, 0x01] + [UInt8](repeating: 0, count: 6) + name + [UInt8](repeating: 0, count: max(0, 8 - name.count))
    }

    @Test func newIndexNamesWinAndAnUnnamedIndexIsHciN() throws {
        let w = BTSnoopWriter(datalink: .linuxMonitor)
        let t = Timestamp(seconds: 1_800_000_000)
        let event = try #require(HCIAdvertisingReport.leMetaEvent([HCIAdvertisingReport(
            eventType: 3, addressType: 1, address: BluetoothAddress(value: 1), rssi: -60,
            data: hex("0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e0002a002bc5")[...])]))
        try w.append(Self.newIndex(Array("usb-dongle".utf8.prefix(8))), flags: 2 << 16, timestamp: t)
        try w.append(Self.newIndex([0x68, 0x63, 0x01]), flags: 4 << 16, timestamp: t)  // damaged: not printable
        for index: UInt16 in [2, 3, 4, 2] { try w.appendEvent(event, timestamp: t, controllerIndex: index) }
        var pipeline = BeaconScanPipeline(observer: "gw")
        var got: [String] = []
        try pipeline.replay(BTSnoopReader(bytes: w.bytes), observerForAdapter: { "gw/\($0)" }) { got.append($0.device) }
        #expect(got == ["gw/usb-dong", "gw/hci3", "gw/hci4", "gw/usb-dong"])
    }

    @Test func capturesWithoutAdapterIndexKeepTheGivenObserver() throws {
        let w = BTSnoopWriter(datalink: .h4)
        let event = try #require(HCIAdvertisingReport.leMetaEvent([HCIAdvertisingReport(
            eventType: 3, addressType: 1, address: BluetoothAddress(value: 1), rssi: -60,
            data: hex("0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e0002a002bc5")[...])]))
        try w.appendEvent(event, timestamp: Timestamp(seconds: 1_800_000_000))
        var pipeline = BeaconScanPipeline(observer: "host/hci0")
        var got: [String] = []
        try pipeline.replay(BTSnoopReader(bytes: w.bytes), observerForAdapter: { "host/\($0)" }) { got.append($0.device) }
        #expect(got == ["host/hci0"])
    }

    @Test func eddystoneTelemetryPassesThroughWithoutIdentity() throws {
        var pipeline = BeaconScanPipeline(observer: "gw-1")
        let tlm = EddystoneTLM(batteryMilliVolts: 3000, temperatureRaw: 0x1300, advertisementCount: 9, uptimeTenths: 100)
        let ad = try #require(BeaconFrame(kind: .eddystoneTLM, tlm: tlm).advertisingData())
        let sighting = pipeline.sighting(adData: ad[...], address: BluetoothAddress(string: "1C:D6:CD:EF:94:35"), rssi: -70,
                                         timestamp: Timestamp(seconds: 10))
        let s = try #require(sighting)
        #expect(s.identity == nil && s.telemetry?.batteryMilliVolts == 3000 && s.telemetry?.uptimeSeconds == 10)
        #expect(s.address == "1C:D6:CD:EF:94:35" && s.proximity == .unknown)
    }

    @Test func eddystoneUIDUsesTheOneMetrePower() throws {
        var pipeline = BeaconScanPipeline(observer: "gw-1", estimator: ProximityEstimator(filter: .unsmoothed))
        // Ranging data −29 dBm at 0 m → −70 dBm at 1 m; received at −70 → 1 m.
        let sighting = pipeline.sighting(adData: hex("0201060303aafe1716aafe00e3123456789012346789010000000000010000")[...],
                                         address: nil, rssi: -70, timestamp: Timestamp(seconds: 0))
        let s = try #require(sighting)
        #expect(s.txPower == -70 && s.distance == 1 && s.proximity == .near)
    }

    @Test func nonBeaconsAndMalformedEventsAreCountedNotFatal() {
        var pipeline = BeaconScanPipeline(observer: "gw-1")
        #expect(pipeline.sighting(adData: hex("020106")[...], address: nil, rssi: -50, timestamp: Timestamp(seconds: 0)) == nil)
        #expect(pipeline.sightings(hciEvent: hex("3e0302")[...], timestamp: Timestamp(seconds: 0)).isEmpty)
        #expect(pipeline.statistics.advertisements == 1 && pipeline.statistics.beacons == 0)
        #expect(pipeline.statistics.malformedEvents == 1 && pipeline.statistics.lastError != nil)
    }
}

/// The replay path at scale: a generated H4 capture (the benchmark's shape, smaller) streams through in order.
@Suite struct ReplayScaleTests {
    @Test func fiftyThousandGeneratedReportsReplayInOrder() throws {
        let path = "/tmp/geotrigger-beacons-scale-\(getpid()).btsnoop"
        defer { unlink(path) }
        let w = try BTSnoopWriter(path: path, datalink: .h4)
        let uuid = UUID128(high: 0xE2C5_6DB5_DFFB_48D2, low: 0xB060_D0F5_A710_96E0)
        let n = 50_000
        for k in 0..<n {
            let frame = BeaconFrame(kind: .iBeacon, identity: .iBeacon(uuid: uuid, major: UInt16(k % 7), minor: UInt16(k % 1000)),
                                    txPower: -59)
            let report = HCIAdvertisingReport(eventType: 3, addressType: 1, address: BluetoothAddress(value: UInt64(k % 1000)),
                                              rssi: -50 - k % 40, data: frame.advertisingData()![...])
            try w.appendEvent(HCIAdvertisingReport.leMetaEvent([report])!, timestamp: Timestamp(microseconds: Int64(k) * 1000))
        }
        try w.close()
        var pipeline = BeaconScanPipeline(observer: "gw")
        var count = 0
        var lastTime = Timestamp.distantPast
        try pipeline.replay(BTSnoopReader(path: path)) { s in
            #expect(s.timestamp > lastTime)
            lastTime = s.timestamp
            count += 1
        }
        #expect(count == n && pipeline.statistics.beacons == n)
        #expect(pipeline.estimator.entryCount <= 7 * 1000)
    }
}
